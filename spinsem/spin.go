package spinsem

import (
	"context"
	"runtime"
	"sync/atomic"

	"github.com/semacat/sem/internal/busy"
)

// procs caches the number of processors that decides whether spinning can
// pay off: runtime.GOMAXPROCS(0) takes a runtime lock. It is refreshed each
// time a goroutine parks, a path that costs far more.
var procs atomic.Int32

func init() { refreshProcs() }

func refreshProcs() { procs.Store(int32(runtime.GOMAXPROCS(0))) }

// procs returns the number of processors spinning may count on.
func (s *Semaphore) procs() int32 {
	if t := s.test; t != nil && t.procs != 0 {
		return t.procs
	}
	return procs.Load()
}

// The spin budget: a spin phase runs at most 2*average+spinMin rounds, never
// more than spinMax, where average is the running average of the rounds that
// successful phases needed. A round ends with a busy loop of spinIters steps,
// like the runtime's procyield(30) in sync.Mutex. The package comment's
// Tuning section tells how they were chosen and how to compare alternatives.
const (
	spinMin   = 4
	spinMax   = 16
	spinIters = 30
)

// spin tries to take n permits for a bounded number of rounds, pausing
// between tries. It reports whether it took them. It returns false early if
// ctx is done, if the semaphore starves or is closed, or if spinning cannot
// help.
func (s *Semaphore) spin(ctx context.Context, n int64) bool {
	if s.procs() <= 1 {
		return false
	}
	avg := s.spins.Load() // rounds, in sixteenths
	limit := min(2*avg/16+spinMin, spinMax)
	for i := int32(0); i < limit; i++ {
		old := s.state.Load()
		if old&noBarging != 0 {
			break
		}
		// The context after the load and before the swap (see
		// takeFrom): a cancellation that came before the permits were
		// freed wins.
		if ctx.Err() != nil {
			return false
		}
		if free(old) >= n && s.takeFrom(old, n) {
			s.adapt(avg, avg+(i*16-avg)/8)
			return true
		}
		if t := s.test; t != nil && t.spin != nil {
			t.spin()
		}
		busy.Work(spinIters)
	}
	s.adapt(avg, avg-avg/8)
	return false
}

// adapt records the new average spin count.
func (s *Semaphore) adapt(avg, next int32) {
	if next != avg {
		s.spins.Store(next)
	}
}
