package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// List is search-insert-delete: searchers work with each other and with
// one inserter, inserters one at a time, a deleter alone.
//
// Two lightswitches, one per kind that shares: the searchers together hold
// noSearcher, the inserters together hold noInserter, and inserters also
// take insertMutex one at a time. A deleter takes both noSearcher and
// noInserter, so it waits for every searcher and inserter inside and
// keeps all new ones out. Nobody but a deleter holds both, so the order in
// which it takes them cannot deadlock.
type List struct {
	insertMutex sem.Semaphore // one permit: one inserter at a time
	noSearcher  sem.Semaphore // one permit: held by the searchers, or a deleter
	noInserter  sem.Semaphore // one permit: held by the inserters, or a deleter
	searchers   *Lightswitch
	inserters   *Lightswitch
}

// NewList returns a list nobody works on.
func NewList(newSemaphore NewSemaphore) *List {
	return &List{
		insertMutex: newSemaphore(1, 1),
		noSearcher:  newSemaphore(1, 1),
		noInserter:  newSemaphore(1, 1),
		searchers:   NewLightswitch(newSemaphore),
		inserters:   NewLightswitch(newSemaphore),
	}
}

// Search calls search once no deleter works.
func (l *List) Search(ctx context.Context, search func()) error {
	if err := l.searchers.Lock(ctx, l.noSearcher); err != nil {
		return err
	}
	search()
	return l.searchers.Unlock(ctx, l.noSearcher)
}

// Insert calls insert once no deleter and no other inserter works.
func (l *List) Insert(ctx context.Context, insert func()) error {
	if err := l.inserters.Lock(ctx, l.noInserter); err != nil {
		return err
	}
	if err := l.insertMutex.Acquire(ctx, 1); err != nil {
		return err
	}
	insert()
	l.insertMutex.Release(1)
	return l.inserters.Unlock(ctx, l.noInserter)
}

// Delete calls delete once nobody else works.
func (l *List) Delete(ctx context.Context, delete func()) error {
	if err := l.noSearcher.Acquire(ctx, 1); err != nil {
		return err
	}
	if err := l.noInserter.Acquire(ctx, 1); err != nil {
		return err
	}
	delete()
	l.noInserter.Release(1)
	l.noSearcher.Release(1)
	return nil
}
