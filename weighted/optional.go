package weighted

import (
	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/check"
)

// Resize sets the size to size, which must be at least 1; it panics
// otherwise. Growing frees the new permits and grants them from the head of
// the queue, in order. Shrinking revokes nothing: holders keep their
// permits, and while more are held than the new size none is free, so
// nothing is granted until enough come back. Every waiting request larger
// than the new size fails at once with an error wrapping sem.ErrExceedsSize,
// and the requests behind it keep their places.
func (s *Semaphore) Resize(size int64) {
	pkg.PanicIfBadSize("Resize", size, check.Unbounded)
	var l wakeList
	s.mu.Lock()
	defer s.unlock(&l)
	held := s.held(s.freeze())
	s.size.Store(size)
	s.owed = max(held-size, 0)
	for w := s.q.head; w != nil; {
		next := w.next
		if w.n > size {
			s.fail(w, pkg.ErrExceedsSize(w.n, size), &l)
		}
		w = next
	}
	s.publish(s.grant(uint64(max(size-held, 0))<<1|slow, &l))
}

// Close fails every waiting Acquire, and every later one, with an error
// wrapping sem.ErrClosed; TryAcquire fails from then on. Release is still
// accepted, so holders can give back what they hold. Close is idempotent
// and always returns nil.
func (s *Semaphore) Close() error {
	var l wakeList
	s.mu.Lock()
	defer s.unlock(&l)
	if s.closed {
		return nil
	}
	s.closed = true
	s.publish(s.freeze()) // the bit kept set for good: every caller meets it
	for w := s.q.head; w != nil; w = s.q.head {
		s.fail(w, pkg.ErrClosed(w.n), &l)
	}
	return nil
}

// Waiting reports how many Acquire calls are queued and how many permits
// they ask for in total, math.MaxInt64 if they ask for more. It is a
// snapshot, stale as soon as it returns.
func (s *Semaphore) Waiting() (requests int, permits int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.q.len, s.q.wanted.Permits()
}

// OnWait installs f to be called once by every Acquire that queued, when it
// stops waiting, before it returns; OnWait(nil) removes it. An Acquire that
// finds f installed when it queues reads the clock when it queues and when
// it stops; with none installed, nothing reads the clock.
func (s *Semaphore) OnWait(f func(sem.WaitEvent)) { s.onWait.Set(f) }
