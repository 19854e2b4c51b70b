package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// oneSwitch is search-insert-delete as readers-writers: searchers and
// inserters share the list through one lightswitch on noDeleter, a
// deleter takes noDeleter alone, and inserters also take insertMutex.
type oneSwitch struct {
	noDeleter, insertMutex sem.Semaphore
	workers                *solutions.Lightswitch
}

func newOneSwitch(n check.NewSemaphore) judge.SearchInsertDelete {
	return &oneSwitch{noDeleter: n(1, 1), insertMutex: n(1, 1), workers: solutions.NewLightswitch(n)}
}

func (l *oneSwitch) Search(ctx context.Context, search func()) error {
	if err := l.workers.Lock(ctx, l.noDeleter); err != nil {
		return err
	}
	search()
	return l.workers.Unlock(ctx, l.noDeleter)
}

func (l *oneSwitch) Insert(ctx context.Context, insert func()) error {
	if err := l.workers.Lock(ctx, l.noDeleter); err != nil {
		return err
	}
	if err := l.insertMutex.Acquire(ctx, 1); err != nil {
		return err
	}
	insert()
	l.insertMutex.Release(1)
	return l.workers.Unlock(ctx, l.noDeleter)
}

func (l *oneSwitch) Delete(ctx context.Context, delete func()) error {
	if err := l.noDeleter.Acquire(ctx, 1); err != nil {
		return err
	}
	delete()
	l.noDeleter.Release(1)
	return nil
}

// oneAtATime lets everybody in through one mutex.
type oneAtATime struct{ mutex sem.Semaphore }

func (l oneAtATime) do(ctx context.Context, work func()) error {
	if err := l.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	work()
	l.mutex.Release(1)
	return nil
}

func (l oneAtATime) Search(ctx context.Context, f func()) error { return l.do(ctx, f) }
func (l oneAtATime) Insert(ctx context.Context, f func()) error { return l.do(ctx, f) }
func (l oneAtATime) Delete(ctx context.Context, f func()) error { return l.do(ctx, f) }

func TestSearchInsertDelete(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.SearchInsertDelete
	judgeAll(t, judge.Problem20,
		official(func(n check.NewSemaphore) judge.SearchInsertDelete { return solutions.NewList(n) },
			check.Right[solution]{Name: "OneSwitch", Solution: newOneSwitch}),
		check.Wrong[solution]{
			Name: "InsertersTogether", // insertMutex of two permits
			Solution: func(n check.NewSemaphore) judge.SearchInsertDelete {
				return solutions.NewList(remade(n, 1, 2, 2))
			},
			Want: "more than 1 at once",
		},
		check.Wrong[solution]{
			Name: "DeleterWithInserter", // noInserter of two permits
			Solution: func(n check.NewSemaphore) judge.SearchInsertDelete {
				return solutions.NewList(remade(n, 3, 2, 2))
			},
			Want: "insert and delete at once",
		},
		check.Wrong[solution]{
			Name:     "OneAtATime",
			Solution: func(n check.NewSemaphore) judge.SearchInsertDelete { return oneAtATime{n(1, 1)} },
			Want:     "searchers never searched together",
		})
}
