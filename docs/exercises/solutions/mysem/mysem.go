// Package mysem is a solution to exercise 1 of docs/exercises.md: the
// textbook semaphore, a mutex, a counter and a condition variable, keeping
// the whole semacat contract and claiming no guarantee beyond it.
//
// A waiter sleeps on the condition variable until its request fits in the
// free permits. Release broadcasts, because the waiters want different
// weights and the releaser cannot tell which of them now fits. sync.Cond
// cannot watch a context, so a waiter registers a context.AfterFunc that
// broadcasts when its context is done; woken, the waiter looks at its
// context before it looks at the permits, so a cancellation that came
// before the Release wins.
//
// What it does not promise, and semtest shows when claimed: a TryAcquire or
// a newcomer may take permits a sleeping waiter was about to get (no
// NoBarging), and a large request can wait forever while small ones keep
// taking what is freed (no NoStarvation).
//
// The argument checks (args.go) give the messages every semacat strategy
// gives for bad input; they are written out so that the solution builds in
// a module of its own.
package mysem

import (
	"context"
	"fmt"
	"sync"
)

// Semaphore is a counting semaphore on a mutex and a condition variable.
type Semaphore struct {
	mu   sync.Mutex
	cond sync.Cond // signaled on every Release and every canceled context
	size int64
	held int64
}

// New returns a semaphore with size permits, all free. It panics if size is
// less than 1.
func New(size int64) *Semaphore {
	if size < 1 {
		panic(fmt.Sprintf("%s: New(%d): size must be at least 1", pkg, size))
	}
	s := &Semaphore{size: size}
	s.cond.L = &s.mu
	return s
}

// Acquire takes n permits, blocking until they are free or ctx is done.
func (s *Semaphore) Acquire(ctx context.Context, n int64) error {
	if err := errAcquire(ctx, n, s.size); err != nil || n == 0 {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer stop()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.take(n) {
			return nil
		}
		s.cond.Wait()
	}
}

// TryAcquire takes n permits only if they are free now, and reports whether
// it did.
func (s *Semaphore) TryAcquire(n int64) bool {
	panicIfNegative("TryAcquire", n)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.take(n)
}

// take takes n permits if they are free, and reports whether it did. The
// caller holds mu.
func (s *Semaphore) take(n int64) bool {
	if s.held+n > s.size {
		return false
	}
	s.held += n
	return true
}

// Release gives back n permits and wakes every waiter to look again. It
// panics, before changing anything, if fewer than n are held.
func (s *Semaphore) Release(n int64) {
	panicIfNegative("Release", n)
	s.mu.Lock()
	defer s.mu.Unlock()
	if n > s.held {
		panicOverRelease(n, s.held)
	}
	s.held -= n
	s.cond.Broadcast()
}
