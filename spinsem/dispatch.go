package spinsem

import "time"

// releaseSlow serves the queue after a Release.
func (s *Semaphore) releaseSlow() {
	s.mu.Lock()
	s.dispatchLocked()
	s.mu.Unlock()
}

// dispatchLocked, with s.mu held, serves the queue: in starvation mode it
// hands permits to the head; in normal mode it wakes the head if its request
// fits and nobody is woken already, and switches to starvation mode if the
// head has waited too long and either does not fit or was woken and has not
// taken its permits yet.
func (s *Semaphore) dispatchLocked() {
	for {
		old := s.state.Load()
		if old&starving != 0 {
			s.handoffLocked()
			return
		}
		if old&waiting == 0 {
			return
		}
		w := s.q.Front()
		if old&woken != 0 || free(old) < w.N {
			if s.nanotime()-w.Since > int64(starvationThreshold) {
				s.state.Or(starving)
				s.handoffLocked()
			}
			return
		}
		if s.state.CompareAndSwap(old, old|woken) {
			s.wokenW = w
			w.Wake()
			return
		}
	}
}

// handoffLocked, with s.mu held and the semaphore starving, hands free
// permits to the waiters at the head of the queue, in order, while their
// requests fit. A head whose context is done is failed with its error
// instead: the cancellation came before the handoff, so it wins, and a
// handoff once made is final. It leaves starvation mode when the queue empties or a
// waiter is served that waited less than starvationThreshold, and then
// serves the queue in normal mode.
func (s *Semaphore) handoffLocked() {
	for {
		w := s.q.Front()
		if w == nil {
			s.state.And(^uint64(waiting | starving))
			return
		}
		last := s.q.Len() == 1
		young := s.nanotime()-w.Since < int64(starvationThreshold)
		var err error
		for {
			old := s.state.Load()
			// The context after the load (see takeFrom): a Release
			// adds permits without the mutex.
			if err = w.Ctx.Err(); err != nil {
				break
			}
			if free(old) < w.N {
				return
			}
			new := old - uint64(w.N)<<permitShift
			if last {
				new &^= waiting
			}
			if last || young {
				new &^= starving
			}
			if s.wokenW == w {
				new &^= woken
			}
			if s.state.CompareAndSwap(old, new) {
				break
			}
		}
		if err != nil {
			w.Err = err
			s.withdrawLocked(w)
			w.Wake()
			continue
		}
		if s.wokenW == w {
			s.wokenW = nil
		}
		s.q.Remove(w)
		w.Granted = true
		w.Wake()
		if last || young {
			s.dispatchLocked()
			return
		}
	}
}

// nanotime is the monotonic time since the semaphore was made.
func (s *Semaphore) nanotime() int64 { return int64(time.Since(s.epoch)) }
