package spinsem

import (
	"math"

	"github.com/semacat/sem/internal/check"
	"github.com/semacat/sem/internal/waitq"
)

// Close shuts the semaphore down: every waiting Acquire, spinning or
// parked, and every later one returns an error wrapping sem.ErrClosed (or
// ctx.Err() if its context is done), and TryAcquire reports false. Release
// is still accepted, so that holders can give back what they hold. Close is
// idempotent and always returns nil. It implements sem.Closer.
//
// The closed flag is one more flag under which arriving goroutines may not
// take permits, tested in the same instruction as starvation mode: the fast
// paths do no more work than before, and their compare-and-swap fails if
// Close changes the word between their load and it. A spinning goroutine
// stops at its next round and parks, and parking fails on a closed
// semaphore.
func (s *Semaphore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.Or(closed)&closed != 0 {
		return nil
	}
	for w := range s.parked {
		s.failLocked(w, failedClosed)
	}
	s.settleLocked()
	return nil
}

// A waiter taken out of the queue without its permits, by Close or by a
// Resize that made its request too large, has a negative Since: failedClosed,
// or minus the size that it exceeds.
const failedClosed = math.MinInt64

// failLocked, with s.mu held, takes w out of the queue without its permits
// and wakes it to return the error that mark stands for.
func (s *Semaphore) failLocked(w *waitq.Waiter, mark int64) {
	s.unqueueLocked(w)
	if s.wokenW == w {
		s.wokenW = nil
		s.state.And(^uint64(woken))
	}
	w.Since = mark
	w.Wake()
}

// settleLocked, with s.mu held, clears the flags that describe the queue
// once failLocked has emptied it.
func (s *Semaphore) settleLocked() {
	if s.q.Len() == 0 {
		s.state.And(^uint64(waiting | starving | woken))
	}
}

// failure returns the error of a waiter that was taken out of the queue
// without its permits, by failLocked or by a handoff that found its context
// done, or nil.
func failure(w *waitq.Waiter) error {
	switch {
	case w.Err != nil:
		return w.Err
	case w.Since == failedClosed:
		return check.Closed(pkg, w.N)
	case w.Since < 0:
		return check.ExceedsSize(pkg, w.N, -w.Since)
	}
	return nil
}

// closedErr returns the error of Acquire(n) if state says the semaphore is
// closed, or nil.
func closedErr(state uint64, n int64) error {
	if state&closed != 0 {
		return check.Closed(pkg, n)
	}
	return nil
}
