package spinsem

import (
	"context"

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
	for w := s.q.Front(); w != nil; w = w.Next() {
		permits += w.N
	}
	return s.q.Len(), permits
}

// OnWait installs f to be called once for every Acquire that had to wait,
// when it stops waiting: granted, canceled, or failed by Close or Resize. It
// runs in the goroutine that called Acquire, before Acquire returns, and must
// be safe for concurrent use. An Acquire waited if it found its permits short
// (or lost them to another goroutine's compare-and-swap), so that it spun or
// parked; the event's Start is when it began to spin. OnWait(nil) removes f.
// With no function installed, Acquire reads no clock. It implements
// sem.Observer.
func (s *Semaphore) OnWait(f func(sem.WaitEvent)) { s.onWait.Set(f) }

// acquireSlow fails Acquire(ctx, n) at once if n exceeds the size, ctx is
// done or the semaphore is closed, in that order, and returns nil for n = 0;
// otherwise it waits for n permits and reports the wait to OnWait's
// function, if any.
func (s *Semaphore) acquireSlow(ctx context.Context, n int64) error {
	if err := s.exceeds(n); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := closedErr(s.state.Load(), n); err != nil || n == 0 {
		return err
	}
	o := s.onWait.Start(n)
	return o.End(s.wait(ctx, n))
}
