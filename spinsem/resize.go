package spinsem

// Resize sets the size to size, for adaptive limits and reloaded
// configuration. It implements sem.Resizer.
//
// Growing adds the new permits to the free ones and serves the queue as a
// Release would: in normal mode the head is woken if it now fits (and each
// waiter that takes its permits wakes the next), in starvation mode permits
// are handed to the waiters in queue order. Shrinking never revokes a held
// permit: it takes the difference from the free permits, which may go below
// zero, so that nothing is free until enough permits come back. Every
// waiting Acquire larger than the new size fails at once with an error
// wrapping sem.ErrExceedsSize, as later ones do.
//
// Resize panics if size is less than 1 or more than MaxSize. It may be
// called after Close.
func (s *Semaphore) Resize(size int64) {
	pkg.PanicIfBadSize("Resize", size, MaxSize)
	s.mu.Lock()
	defer s.mu.Unlock()
	from := s.Size()
	if size == from {
		return
	}
	s.sizes[(s.state.Load()>>genShift+1)&1].Store(size)
	for {
		old := s.state.Load()
		new := old&^genMask | (old+1<<genShift)&genMask
		new += uint64(size-from) << permitShift
		if s.state.CompareAndSwap(old, new) {
			break
		}
	}
	if size < from {
		for w := s.q.Front(); w != nil; {
			next := w.Next()
			if w.N > size {
				s.failLocked(w, pkg.ErrExceedsSize(w.N, size))
			}
			w = next
		}
		s.settleLocked()
	}
	s.dispatchLocked()
}

// releaseChecked is Release(n) when a quick look found n more than held,
// which may come from a size read while a Resize ran: it looks again with
// s.mu held, where the size cannot change, and panics only if n really is
// more than held.
func (s *Semaphore) releaseChecked(n int64) {
	s.mu.Lock()
	for {
		old := s.state.Load()
		if held := s.sizeAt(old) - free(old); n > held {
			s.mu.Unlock()
			pkg.PanicOverRelease(n, held)
		}
		if s.state.CompareAndSwap(old, old+uint64(n)<<permitShift) {
			break
		}
	}
	s.dispatchLocked()
	s.mu.Unlock()
}
