package spinsem

import (
	"context"

	"github.com/semacat/sem/internal/waitq"
)

// wait spins, then parks. Every place where it may take its permits, in a
// spin round, under the mutex before it queues, on its turn after a
// wake-up, or when they are handed to it, looks at ctx first: a
// cancellation that came first wins there, and permits once taken are
// kept.
func (s *Semaphore) wait(ctx context.Context, n int64) error {
	if s.spin(ctx, n) {
		return nil
	}
	return s.park(ctx, n)
}

// park queues a waiter for n permits and blocks until it holds them or ctx
// is done.
func (s *Semaphore) park(ctx context.Context, n int64) error {
	refreshProcs()
	s.mu.Lock()
	w, err := s.takeOrQueueLocked(ctx, n)
	s.mu.Unlock()
	if w == nil {
		return err
	}
	if t := s.test; t != nil && t.park != nil {
		t.park()
	}
	for {
		select {
		case <-w.Woken():
			if done, err := s.served(w); done {
				return err
			}
		case <-ctx.Done():
			return s.cancel(ctx, w)
		}
	}
}

// served handles a wake-up of w and reports whether w is done waiting and
// has left the queue: it holds its permits, handed to it or taken on its
// turn, or it failed, and then the error says why: its context was done
// before the permits were handed to it or before its turn, or Close or
// Resize failed it.
func (s *Semaphore) served(w *waitq.Waiter) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	done, err := w.Err != nil || w.Granted, w.Err
	if !done {
		done, err = s.retryLocked(w)
	}
	if done {
		s.q.Recycle(w)
	}
	return done, err
}

// takeOrQueueLocked, with s.mu held, takes n permits for an Acquire(ctx, n)
// if it may, or queues a waiter for them at the tail. It returns the waiter,
// or nil if it took the permits, or an error if ctx is done, the semaphore
// is closed or n exceeds its size, which cannot change while s.mu is held.
func (s *Semaphore) takeOrQueueLocked(ctx context.Context, n int64) (*waitq.Waiter, error) {
	for {
		old := s.state.Load()
		// The context after the load (see takeFrom): the fast paths
		// change the state without the mutex.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := closedErr(old, n); err != nil {
			return nil, err
		}
		if size := s.sizeAt(old); n > size {
			return nil, pkg.ErrExceedsSize(n, size)
		}
		if old&starving == 0 && free(old) >= n {
			if s.takeFrom(old, n) {
				return nil, nil
			}
			continue
		}
		if s.state.CompareAndSwap(old, old|waiting) {
			break
		}
	}
	w := s.q.PushBack(ctx, n)
	w.Since = s.nanotime()
	return w, nil
}

// retryLocked, with s.mu held, handles a wake-up of w, which is queued and
// was neither handed its permits nor failed, and reports whether w is done
// waiting and has left the queue, and the error if it failed. If its
// context is done it leaves the queue and fails with the context's error.
// Otherwise, on its turn, woken in normal mode while at the head of the
// queue, it clears the woken flag and takes the permits if they are still
// free, leaving the queue; a waiter that lost to a barging goroutine stays
// where it was, at the front of the queue. Either way it passes on the
// wake-up it consumed. A wake-up it no longer needs changes nothing.
func (s *Semaphore) retryLocked(w *waitq.Waiter) (bool, error) {
	for {
		old := s.state.Load()
		// The context after the load (see takeFrom): the fast paths
		// change the state without the mutex.
		if err := w.Ctx.Err(); err != nil {
			s.withdrawLocked(w)
			s.dispatchLocked()
			return true, err
		}
		if s.wokenW != w {
			return false, nil
		}
		new := old &^ woken
		took := old&starving == 0 && free(old) >= w.N
		if took {
			new -= uint64(w.N) << permitShift
			if s.q.Len() == 1 {
				new &^= waiting
			}
		}
		if s.state.CompareAndSwap(old, new) {
			s.wokenW = nil
			if took {
				s.q.Remove(w)
			}
			s.dispatchLocked()
			return took, nil
		}
	}
}

// cancel takes w out of the semaphore after ctx is done while it waits,
// leaving the semaphore as if it had never asked, and returns ctx.Err().
// If the permits were handed to w in the meantime, the handoff looked at
// ctx first, so it came before the cancellation: it is final, and cancel
// returns nil.
func (s *Semaphore) cancel(ctx context.Context, w *waitq.Waiter) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	granted := w.Granted
	if !granted {
		s.withdrawLocked(w)
		s.dispatchLocked()
	}
	s.q.Recycle(w)
	if granted {
		return nil
	}
	return ctx.Err()
}

// withdrawLocked, with s.mu held, takes w out of the queue without its
// permits, with the flags that stood for it. It does nothing to a w that
// Close or Resize already took out, beyond the flags.
func (s *Semaphore) withdrawLocked(w *waitq.Waiter) {
	clear := uint64(0)
	if s.wokenW == w {
		s.wokenW = nil
		clear |= woken
	}
	s.q.Remove(w)
	if s.q.Len() == 0 {
		clear |= waiting | starving
	}
	s.state.And(^clear)
}
