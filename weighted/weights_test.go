package weighted_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// The weights scenario of BenchmarkHandOff and of the harness
// (goroutines=16/size=8/weights=1-4): 16 goroutines on 8 permits, each
// Acquire taking 1 to 4 and nothing done while they are held.
const (
	weightsGoroutines = 16
	weightsSize       = 8
	weightsMax        = 4
)

// handOffWeights is BenchmarkHandOff's scenario with weights, raced by
// every contender that serves them.
//
// The same scenario runs again with one context that can be canceled,
// shared by every goroutine, as a request's context is by the work it
// fans out (ctx=cancelable/...), for the contenders that look at it:
// every waiter then parks in a select on that context's Done channel too.
func handOffWeights(b *testing.B) {
	for _, c := range weightsContenders {
		b.Run(fmt.Sprintf("weights=1-%d/size=%d/impl=%s", weightsMax, weightsSize, c.name), func(b *testing.B) {
			reportCPU(b, func() {
				weightsConvoy(b, context.Background(), c.new(weightsSize), weightsSize, weightsGoroutines)
			})
		})
	}
	for _, c := range weightsContenders {
		if c.name != "add1lazy" && c.name != "weighted" && c.name != "xsync" {
			continue
		}
		b.Run(fmt.Sprintf("ctx=cancelable/weights=1-%d/size=%d/impl=%s", weightsMax, weightsSize, c.name), func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			reportCPU(b, func() {
				weightsConvoy(b, ctx, c.new(weightsSize), weightsSize, weightsGoroutines)
			})
		})
	}
}

// weightOf is the weight of goroutine i's k-th Acquire: each goroutine
// cycles through 1 to weightsMax from its own starting point, so that
// every contender is asked for the same weights in the same order by each
// goroutine, and the goroutines ask for different weights at once.
func weightOf(i, k int) int64 { return 1 + int64((i+k)%weightsMax) }

// weightsConvoy runs b.N Acquire(w)+Release(w) cycles on s, a semaphore
// of the given size, from the given number of goroutines, with the
// weights of weightOf and nothing done while the permits are held. As in
// convoy, the goroutines start queued behind all the permits.
func weightsConvoy(b *testing.B, ctx context.Context, s sem.Semaphore, size int64, goroutines int) {
	acquiretest.Queued(b, s, size, goroutines, func(i, n int) {
		for k := range n {
			w := weightOf(i, k)
			if err := s.Acquire(ctx, w); err != nil {
				panic(fmt.Sprintf("Acquire(%d): %v", w, err))
			}
			s.Release(w)
		}
	})
}

// BenchmarkHandOffWakeups counts the wake-ups of BenchmarkHandOff's
// weights scenario, apart from the race, since counting costs: wakeups/op
// is the waiters woken per Acquire+Release cycle (every Acquire that
// queues is woken once, by the Release that grants it, so it is also the
// share of Acquires that park), and wakeups/batch the waiters woken by
// each Release that wakes any (a Release whose permits serve several
// waiters at the head wakes them all). fifo counts under its mutex;
// weighted counts through its test hooks, which fire only for a waiter
// whose context can be done, so it runs here with a context that is
// never canceled. x/sync cannot be counted without changing it; its
// allocs/op in the race tells how many of its Acquires park.
func BenchmarkHandOffWakeups(b *testing.B) {
	b.Run(fmt.Sprintf("weights=1-%d/size=%d/impl=fifo", weightsMax, weightsSize), func(b *testing.B) {
		f := &countedFifo{fifo: fifo{free: weightsSize}}
		weightsConvoy(b, context.Background(), f, weightsSize, weightsGoroutines)
		reportWakeups(b, int64(f.wakeups), int64(f.batches))
	})
	b.Run(fmt.Sprintf("weights=1-%d/size=%d/impl=weighted", weightsMax, weightsSize), func(b *testing.B) {
		s := weighted.New(weightsSize)
		c := countWakeups(s)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		weightsConvoy(b, ctx, s, weightsSize, weightsGoroutines)
		reportWakeups(b, c.parks.Load(), c.batches.Load())
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

// reportWakeups reports the wake-ups a run of b.N cycles counted, and the
// Releases that woke any.
func reportWakeups(b *testing.B, wakeups, batches int64) {
	b.ReportMetric(float64(wakeups)/float64(b.N), "wakeups/op")
	if batches > 0 {
		b.ReportMetric(float64(wakeups)/float64(batches), "wakeups/batch")
	}
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

// The counts of BenchmarkHandOffWakeups are what they say, for fifo and
// for weighted: a Release that serves nobody wakes no batch, one whose
// permits serve two queued waiters at once is one batch of two wake-ups.
func TestWakeupCounts(t *testing.T) {
	t.Run("fifo", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := &countedFifo{fifo: fifo{free: 4}}
			checkWakeupCounts(t, f, func() (int64, int64) { return int64(f.wakeups), int64(f.batches) })
		})
	})
	t.Run("weighted", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := weighted.New(4)
			c := countWakeups(s)
			checkWakeupCounts(t, s, func() (int64, int64) { return c.parks.Load(), c.batches.Load() })
		})
	})
}

// checkWakeupCounts queues requests of 3, 1 and 1 on s, a semaphore of 4
// permits, behind all of them held, and gives the permits back so that
// the first two are woken together and the last alone.
func checkWakeupCounts(t *testing.T, s sem.Semaphore, counts func() (wakeups, batches int64)) {
	require.True(t, s.TryAcquire(4))
	var calls []*acquiretest.Call
	for _, n := range []int64{3, 1, 1} {
		calls = append(calls, acquiretest.Go(s, n))
		synctest.Wait()
	}
	s.Release(1) // 1 free: the head wants 3
	synctest.Wait()
	_, batches := counts()
	assert.Zero(t, batches, "a Release that served nobody counted as a batch")
	s.Release(3) // 4 free: the 3 and the first 1
	synctest.Wait()
	require.True(t, calls[0].Served())
	require.True(t, calls[1].Served())
	require.False(t, calls[2].Returned())
	s.Release(1) // the first 1 gives its permit back: the last 1
	synctest.Wait()
	require.True(t, calls[2].Served())
	s.Release(4) // nobody waits
	wakeups, batches := counts()
	assert.Equal(t, [2]int64{3, 2}, [2]int64{wakeups, batches}, "wake-ups and batches")
	for _, c := range calls {
		c.Cancel()
	}
}
