package spinsem

import "github.com/semacat/sem/internal/waitq"

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
	for w := s.q.Front(); w != nil; w = s.q.Front() {
		s.failLocked(w, pkg.ErrClosed(w.N))
	}
	s.settleLocked()
	return nil
}

// failLocked, with s.mu held, takes w out of the queue without its permits
// and wakes it to return err.
func (s *Semaphore) failLocked(w *waitq.Waiter, err error) {
	s.q.Remove(w)
	if s.wokenW == w {
		s.wokenW = nil
		s.state.And(^uint64(woken))
	}
	w.Err = err
	w.Wake()
}

// settleLocked, with s.mu held, clears the flags that describe the queue
// once failLocked has emptied it.
func (s *Semaphore) settleLocked() {
	if s.q.Len() == 0 {
		s.state.And(^uint64(waiting | starving | woken))
	}
}

// closedErr returns the error of Acquire(n) if state says the semaphore is
// closed, or nil.
func closedErr(state uint64, n int64) error {
	if state&closed != 0 {
		return pkg.ErrClosed(n)
	}
	return nil
}
