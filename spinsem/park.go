package spinsem

import (
	"context"

	"github.com/semacat/sem/internal/check"
	"github.com/semacat/sem/internal/grant"
	"github.com/semacat/sem/internal/waitq"
)

// wait spins, then parks.
func (s *Semaphore) wait(ctx context.Context, n int64) error {
	if s.spin(ctx, n) {
		return grant.Keep(ctx, s, n)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.park(ctx, n)
}

// park queues a waiter for n permits and blocks until it holds them or ctx
// is done.
func (s *Semaphore) park(ctx context.Context, n int64) error {
	refreshProcs()
	s.mu.Lock()
	w, err := s.takeOrQueueLocked(n)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if w == nil {
		return grant.Keep(ctx, s, n)
	}
	if testHookPark != nil {
		testHookPark()
	}
	for {
		select {
		case <-w.Woken():
			if done, err := s.served(w); done {
				if err != nil {
					return err
				}
				return grant.Keep(ctx, s, n)
			}
		case <-ctx.Done():
			return s.cancel(ctx, w)
		}
	}
}

// testHookPark, when set by a test, runs just before a queued waiter blocks,
// the moment at which its wake-up and its context may both become ready.
var testHookPark func()

// served handles a wake-up of w and reports whether w is done waiting and
// has left the queue: it holds its permits, handed to it or taken on its
// turn, or it was failed by Close or Resize, and then the error says why.
func (s *Semaphore) served(w *waitq.Waiter) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := failure(w)
	done := err != nil || w.Granted || s.retryLocked(w)
	if done {
		s.q.Recycle(w)
	}
	return done, err
}

// takeOrQueueLocked, with s.mu held, takes n permits if it may, or queues a
// waiter for them at the tail. It returns the waiter, or nil if it took the
// permits, or an error if the semaphore is closed or n exceeds its size,
// which cannot change while s.mu is held.
func (s *Semaphore) takeOrQueueLocked(n int64) (*waitq.Waiter, error) {
	for {
		old := s.state.Load()
		if err := closedErr(old, n); err != nil {
			return nil, err
		}
		if size := s.sizeAt(old); n > size {
			return nil, check.ExceedsSize(pkg, n, size)
		}
		if old&starving == 0 && free(old) >= n {
			if s.state.CompareAndSwap(old, old-uint64(n)<<permitShift) {
				return nil, nil
			}
			continue
		}
		if s.state.CompareAndSwap(old, old|waiting) {
			break
		}
	}
	w := s.q.PushBack(n)
	w.Since = s.nanotime()
	s.parked[w] = struct{}{}
	return w, nil
}

// retryLocked, with s.mu held, is the turn of w, woken in normal mode while
// at the head of the queue: it clears the woken flag and takes the permits
// if they are still free, leaving the queue, and reports whether it did. A
// waiter that lost to a barging goroutine stays where it was, at the front
// of the queue. Either way it passes on the wake-up it consumed.
func (s *Semaphore) retryLocked(w *waitq.Waiter) bool {
	if s.wokenW != w {
		return false // a wake-up it no longer needs; keep waiting
	}
	s.wokenW = nil
	for {
		old := s.state.Load()
		new := old &^ woken
		took := old&starving == 0 && free(old) >= w.N
		if took {
			new -= uint64(w.N) << permitShift
			if s.q.Len() == 1 {
				new &^= waiting
			}
		}
		if s.state.CompareAndSwap(old, new) {
			if took {
				s.unqueueLocked(w)
			}
			s.dispatchLocked()
			return took
		}
	}
}

// cancel takes w out of the semaphore after ctx is done while it waits,
// leaving the semaphore as if it had never asked, and returns ctx.Err().
func (s *Semaphore) cancel(ctx context.Context, w *waitq.Waiter) error {
	s.mu.Lock()
	if w.Granted {
		// Permits were handed to w as its context ended, and the
		// cancellation may have come first: hand them on.
		s.state.Add(uint64(w.N) << permitShift)
	} else {
		clear := uint64(0)
		if s.wokenW == w {
			s.wokenW = nil
			clear |= woken
		}
		s.unqueueLocked(w)
		if s.q.Len() == 0 {
			clear |= waiting | starving
		}
		s.state.And(^clear)
	}
	s.q.Recycle(w)
	s.dispatchLocked()
	s.mu.Unlock()
	return ctx.Err()
}

// unqueueLocked, with s.mu held, takes w out of the queue. It does nothing
// if w is not queued.
func (s *Semaphore) unqueueLocked(w *waitq.Waiter) {
	s.q.Remove(w)
	delete(s.parked, w)
}
