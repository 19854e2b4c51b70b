package redissem

import (
	"context"
	"fmt"

	"github.com/semacat/sem"
)

// Waiting reports how many Acquire calls wait in the semaphore's queue in
// Redis, across every handle on its name, and how many permits they ask
// for in total: a snapshot for monitoring, stale as soon as it returns. It
// costs a round trip, bounded by the handle's timeout; if that fails, it
// reports 0, 0 and passes the error to the error handler.
func (s *Semaphore) Waiting() (requests int, permits int64) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	v, err := s.info(ctx, false)
	if err != nil {
		s.report(fmt.Errorf("%s: Waiting on %q: %w", pkg, s.name, err))
		return 0, 0
	}
	return int(v[1]), v[2]
}

// OnWait installs f to be called once for every Acquire or AcquirePermit of
// this handle that had to wait in the queue, when it stops waiting
// (granted, canceled, or failed), from the goroutine that called it and
// before it returns. f must be safe for concurrent use and must not block
// for long. OnWait(nil) removes it.
func (s *Semaphore) OnWait(f func(sem.WaitEvent)) {
	if f == nil {
		s.onWait.Store(nil)
		return
	}
	s.onWait.Store(&f)
}
