package condsem

import (
	"sync/atomic"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/check"
)

// Resize sets the size to size, which must be at least 1; it panics
// otherwise. Growing frees the new permits and wakes the waiters; shrinking
// revokes nothing: holders keep their permits, and while more are held than
// the new size none is free. Every waiting request larger than the new size
// fails with an error wrapping sem.ErrExceedsSize as soon as it runs.
func (s *Semaphore) Resize(size int64) {
	check.Resize(pkg, size)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limit = resize(&s.size, size, s.closed)
	if s.waiters > 0 {
		s.cond.Broadcast()
	}
}

// Close fails every waiting Acquire, and every later one, with an error
// wrapping sem.ErrClosed; TryAcquire fails from then on. Release is still
// accepted, so holders can give back what they hold. Close is idempotent
// and always returns nil.
func (s *Semaphore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed, s.limit = true, 0
	s.cond.Broadcast()
	return nil
}

// Waiting reports how many Acquire calls wait and how many permits they
// ask for in total. It is a snapshot, stale as soon as it returns.
func (s *Semaphore) Waiting() (requests int, permits int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiters, s.wanted
}

// OnWait installs f to be called once by every Acquire that waited, when it
// stops waiting, before it returns; OnWait(nil) removes it. With none
// installed, nothing reads the clock.
func (s *Semaphore) OnWait(f func(sem.WaitEvent)) { s.hook.set(f) }

// Resize sets the size to size, which must be at least 1; it panics
// otherwise. Growing frees the new permits and wakes the head of the queue
// if it now fits; shrinking revokes nothing: holders keep their permits, and
// while more are held than the new size none is free. Every waiting request
// larger than the new size leaves the queue and fails with an error
// wrapping sem.ErrExceedsSize as soon as it runs, and the requests behind it
// keep their order.
func (s *Fair) Resize(size int64) {
	check.Resize(pkg, size)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limit = resize(&s.size, size, s.closed)
	if len(s.queue) > 0 {
		s.cond.Broadcast()
	}
}

// Close fails every waiting Acquire, and every later one, with an error
// wrapping sem.ErrClosed; TryAcquire fails from then on. Release is still
// accepted, so holders can give back what they hold. Close is idempotent
// and always returns nil.
func (s *Fair) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed, s.limit = true, 0
	s.cond.Broadcast()
	return nil
}

// Waiting reports how many Acquire calls are queued and how many permits
// they ask for in total. It is a snapshot, stale as soon as it returns.
func (s *Fair) Waiting() (requests int, permits int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.queue {
		permits += r.n
	}
	return len(s.queue), permits
}

// OnWait installs f to be called once by every Acquire that queued, when it
// stops waiting, before it returns; OnWait(nil) removes it. With none
// installed, nothing reads the clock.
func (s *Fair) OnWait(f func(sem.WaitEvent)) { s.hook.set(f) }

// resize stores the new size and returns the limit that goes with it: the
// size, or zero on a closed semaphore.
func resize(stored *atomic.Int64, size int64, closed bool) (limit int64) {
	stored.Store(size)
	if closed {
		return 0
	}
	return size
}

// waitHook holds the function installed by OnWait.
type waitHook struct {
	f atomic.Pointer[func(sem.WaitEvent)]
}

func (h *waitHook) set(f func(sem.WaitEvent)) {
	if f == nil {
		h.f.Store(nil)
		return
	}
	h.f.Store(&f)
}

// start is called by an Acquire that is about to wait. It returns the
// function to report to, nil if none is installed, and if there is one the
// time the wait starts.
func (h *waitHook) start() (*func(sem.WaitEvent), time.Time) {
	f := h.f.Load()
	if f == nil {
		return nil, time.Time{}
	}
	return f, time.Now()
}

// report calls f, if not nil, with the wait of an Acquire(n) that started at
// start and ends now with err, and returns err.
func report(f *func(sem.WaitEvent), n int64, start time.Time, err error) error {
	if f != nil {
		(*f)(sem.WaitEvent{N: n, Start: start, End: time.Now(), Err: err})
	}
	return err
}
