package weighted_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/acquiretest"
	"github.com/semacat/sem/weighted"
)

// BenchmarkUncontended is the fast paths of Acquire and Release, which
// look at the context between the load of the state and the swap that
// takes the permits.
func BenchmarkUncontended(b *testing.B) {
	acquiretest.BenchUncontended(b, func(size int64) sem.Semaphore { return weighted.New(size) })
}

// BenchmarkHandOffWakeups counts weighted's wake-ups in the weights
// scenario of BenchmarkHandOff (in lab/handoff, beside its contenders),
// apart from the race, since counting costs: wakeups/op is the waiters
// woken per Acquire+Release cycle (every Acquire that queues is woken
// once, by the Release that grants it, so it is also the share of
// Acquires that park), and wakeups/batch the waiters woken by each
// Release that wakes any (a Release whose permits serve several waiters
// at the head wakes them all). weighted counts through its test hooks,
// which only this package can install, so this half of the count stays
// here; lab/handoff's BenchmarkHandOffWakeups counts fifo's, in the same
// scenario. The hooks fire only for a waiter whose context can be done,
// so it runs with a context that is never canceled.
func BenchmarkHandOffWakeups(b *testing.B) {
	b.Run(fmt.Sprintf("weights=1-%d/size=%d/impl=weighted", acquiretest.WeightsMax, acquiretest.WeightsSize), func(b *testing.B) {
		s := weighted.New(acquiretest.WeightsSize)
		c := countWakeups(s)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		acquiretest.BenchWeights(b, ctx, s)
		acquiretest.ReportWakeups(b, c.parks.Load(), c.batches.Load())
	})
}

// wakeupCounts are the wake-ups of a weighted.Semaphore, counted by
// countWakeups: parks, the waiters that parked, each woken once; batches,
// the unlocks that woke any.
type wakeupCounts struct{ parks, batches atomic.Int64 }

// countWakeups installs on s, before it is shared, the test hooks that
// count its wake-ups. Only a waiter whose context can be done reaches the
// park hook.
func countWakeups(s *weighted.Semaphore) *wakeupCounts {
	c := new(wakeupCounts)
	s.SetTestHookPark(func() { c.parks.Add(1) })
	s.SetTestHookWake(func() { c.batches.Add(1) })
	return c
}

// The counts of BenchmarkHandOffWakeups are what they say for weighted: a
// Release that serves nobody wakes no batch, one whose permits serve two
// queued waiters at once is one batch of two wake-ups (lab/handoff's
// TestWakeupCounts checks fifo's).
func TestWakeupCounts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(4)
		c := countWakeups(s)
		acquiretest.CheckWakeupCounts(t, s, func() (int64, int64) { return c.parks.Load(), c.batches.Load() })
	})
}
