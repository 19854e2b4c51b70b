package classics

import (
	"context"

	"github.com/semacat/sem"
)

// Sized is a semaphore that tells its size, as every strategy of this
// repository does.
type Sized interface {
	sem.Semaphore
	Size() int64
}

// RWLock is a readers-writers lock made of one semaphore: a reader takes
// one permit, a writer takes all of them. Up to Size readers share the
// lock; a writer has it alone.
//
// Whether a writer can starve is the semaphore's choice, not the lock's. A
// writer needs every permit free at the same instant. On a semaphore that
// lets a newcomer take a free permit ahead of a waiter (condsem.New, which
// barges), readers that keep overlapping never leave that instant, and the
// writer waits until they all stop. On a first-come, first-served one
// (weighted, condsem.NewFair), readers that arrive after the writer queue
// behind it, the readers already in finish, and the writer gets in.
type RWLock struct {
	s    Sized
	size int64
}

// NewRWLock returns a lock that admits up to s.Size() readers at once. The
// lock owns s from then on: nothing else may acquire or release it.
func NewRWLock(s Sized) *RWLock {
	return &RWLock{s: s, size: s.Size()}
}

// RLock takes the lock for reading, waiting while a writer holds it (and, on
// a first-come, first-served semaphore, while a writer waits for it). It
// returns ctx.Err(), holding nothing, if ctx is done first.
func (l *RWLock) RLock(ctx context.Context) error { return l.s.Acquire(ctx, 1) }

// RUnlock gives back a read lock taken by RLock.
func (l *RWLock) RUnlock() { l.s.Release(1) }

// Lock takes the lock for writing, waiting until no reader or writer holds
// it. It returns ctx.Err(), holding nothing, if ctx is done first.
func (l *RWLock) Lock(ctx context.Context) error { return l.s.Acquire(ctx, l.size) }

// Unlock gives back a write lock taken by Lock.
func (l *RWLock) Unlock() { l.s.Release(l.size) }
