package condsem

import (
	"context"
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

// wait ends an Acquire(ctx, n) that must wait, called with the
// semaphore's mutex held: wait(ctx, n) waits for the permits and releases
// the mutex. It returns what the Acquire returns, after reporting the wait
// to the installed function, if any; with none, it reads no clock.
func (h *waitHook) wait(ctx context.Context, n int64, wait func(context.Context, int64) error) error {
	f := h.f.Load()
	if f == nil {
		return wait(ctx, n)
	}
	e := sem.WaitEvent{N: n, Start: time.Now()}
	e.Err = wait(ctx, n)
	e.End = time.Now()
	(*f)(e)
	return e.Err
}
