package handoff

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"

	"golang.org/x/sync/semaphore"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/acquiretest"
	"github.com/semacat/sem/weighted"
)

// contender is a semaphore that BenchmarkHandOff races, by name.
type contender struct {
	name string
	new  func(size int64) sem.Semaphore
}

// weightsContenders are the contenders of BenchmarkHandOff that serve
// weights: fifo, the additive ones built on it, weighted and x/sync. A
// channel serves one permit per send, so chan and chan+mutex have no
// place here.
var weightsContenders = append(fifoContenders[:len(fifoContenders):len(fifoContenders)],
	contender{"weighted", func(size int64) sem.Semaphore { return weighted.New(size) }},
	contender{"xsync", func(size int64) sem.Semaphore { return semaphore.NewWeighted(size) }},
)

// handOffWeights is BenchmarkHandOff's scenario with weights (the
// harness's goroutines=16/size=8/weights=1-4, see acquiretest.BenchWeights),
// raced by every contender that serves them.
//
// The same scenario runs again with one context that can be canceled,
// shared by every goroutine, as a request's context is by the work it
// fans out (ctx=cancelable/...), for the contenders that look at it:
// every waiter then parks in a select on that context's Done channel too.
func handOffWeights(b *testing.B) {
	name := fmt.Sprintf("weights=1-%d/size=%d/impl=", acquiretest.WeightsMax, acquiretest.WeightsSize)
	for _, c := range weightsContenders {
		b.Run(name+c.name, func(b *testing.B) {
			reportCPU(b, func() {
				acquiretest.BenchWeights(b, context.Background(), c.new(acquiretest.WeightsSize))
			})
		})
	}
	for _, c := range weightsContenders {
		if c.name != "add1lazy" && c.name != "weighted" && c.name != "xsync" {
			continue
		}
		b.Run("ctx=cancelable/"+name+c.name, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			reportCPU(b, func() {
				acquiretest.BenchWeights(b, ctx, c.new(acquiretest.WeightsSize))
			})
		})
	}
}

// BenchmarkHandOffWakeups counts fifo's wake-ups in BenchmarkHandOff's
// weights scenario, apart from the race, since counting costs: wakeups/op
// is the waiters woken per Acquire+Release cycle (every Acquire that
// queues is woken once, by the Release that grants it, so it is also the
// share of Acquires that park), and wakeups/batch the waiters woken by
// each Release that wakes any (a Release whose permits serve several
// waiters at the head wakes them all). fifo counts under its mutex.
// weighted counts through its test hooks, which only package weighted can
// install, so its half, impl=weighted, is weighted's own
// BenchmarkHandOffWakeups, in the same scenario. x/sync cannot be counted
// without changing it; its allocs/op in the race tells how many of its
// Acquires park.
func BenchmarkHandOffWakeups(b *testing.B) {
	b.Run(fmt.Sprintf("weights=1-%d/size=%d/impl=fifo", acquiretest.WeightsMax, acquiretest.WeightsSize), func(b *testing.B) {
		f := &countedFifo{fifo: fifo{free: acquiretest.WeightsSize}}
		acquiretest.BenchWeights(b, context.Background(), f)
		acquiretest.ReportWakeups(b, int64(f.wakeups), int64(f.batches))
	})
}

// countedFifo is fifo counting, under its mutex, the waiters its Releases
// wake and the Releases that wake any.
type countedFifo struct {
	fifo
	wakeups, batches int
}

func (f *countedFifo) Release(n int64) {
	f.mu.Lock()
	f.free += n
	woken := f.grant()
	if woken != nil {
		f.batches++
	}
	for w := woken; w != nil; w = w.next {
		f.wakeups++
	}
	f.mu.Unlock()
	wakeFifo(woken)
}

// The counts of BenchmarkHandOffWakeups are what they say for fifo: a
// Release that serves nobody wakes no batch, one whose permits serve two
// queued waiters at once is one batch of two wake-ups (weighted's
// TestWakeupCounts checks weighted's).
func TestWakeupCounts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &countedFifo{fifo: fifo{free: 4}}
		acquiretest.CheckWakeupCounts(t, f, func() (int64, int64) { return int64(f.wakeups), int64(f.batches) })
	})
}
