package etcdsem

// Settled reports whether every call on s has returned or is parked on a
// watch, with a live context, that has seen every write s made to the
// queue: nothing on this handle can move until someone acts.
func (s *Semaphore) Settled() bool {
	if s.busy.Load() != 0 {
		return false
	}
	last := s.lastWrite.Load()
	s.mu.Lock()
	defer s.mu.Unlock()
	for q := range s.waiting {
		if q.ctx.Err() != nil || q.seen.Load() < last {
			return false
		}
	}
	return s.busy.Load() == 0
}
