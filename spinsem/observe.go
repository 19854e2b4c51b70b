package spinsem

import (
	"context"
	"time"

	"github.com/semacat/sem"
)

// Waiting reports how many Acquire calls are parked in the queue and how
// many permits they ask for in total. A call that is still spinning, for a
// few short rounds before it parks, is not counted: counting it
// would put a shared counter on the spinners' path. It is a snapshot, stale
// as soon as it returns. With OnWait it implements sem.Observer.
func (s *Semaphore) Waiting() (requests int, permits int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.parked {
		permits += w.N
	}
	return len(s.parked), permits
}

// OnWait installs f to be called once for every Acquire that had to wait,
// when it stops waiting: granted, canceled, or failed by Close or Resize. It
// runs in the goroutine that called Acquire, before Acquire returns, and must
// be safe for concurrent use. An Acquire waited if it found its permits short
// (or lost them to another goroutine's compare-and-swap), so that it spun or
// parked; the event's Start is when it began to spin. OnWait(nil) removes f.
// With no function installed, Acquire reads no clock. It implements
// sem.Observer.
func (s *Semaphore) OnWait(f func(sem.WaitEvent)) {
	if f == nil {
		s.onWait.Store(nil)
		return
	}
	s.onWait.Store(&f)
}

// acquireSlow fails Acquire(n) at once if n exceeds the size or the
// semaphore is closed; otherwise it waits for n permits and reports the wait
// to OnWait's function, if any.
func (s *Semaphore) acquireSlow(ctx context.Context, n int64) error {
	if err := s.exceeds(n); err != nil {
		return err
	}
	if err := closedErr(s.state.Load(), n); err != nil {
		return err
	}
	f := s.onWait.Load()
	if f == nil {
		return s.wait(ctx, n)
	}
	start := time.Now()
	err := s.wait(ctx, n)
	(*f)(sem.WaitEvent{N: n, Start: start, End: time.Now(), Err: err})
	return err
}
