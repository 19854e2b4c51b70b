package handoff

import (
	"context"
	"fmt"
	"runtime/metrics"
	"sync"
	"testing"

	"golang.org/x/sync/semaphore"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/acquiretest"
	"github.com/semacat/sem/weighted"
)

// BenchmarkHandOff measures what weighted pays for a FIFO hand-off on top
// of a raw channel's, in the convoy every FIFO semaphore settles into under
// contention, where every Acquire parks and every Release wakes the next in
// line. At size 1, 16 goroutines cycle Acquire(1) and Release(1); at size
// 4, 64 goroutines do, with a short busy loop while they hold the permit,
// so that both processors hand off at once and contend for whatever the
// contenders lock. Compare the contenders with benchstat -col /impl:
//
//   - chan: a raw buffered channel, whose lock is its queue's lock too: the
//     floor of a FIFO hand-off without access to the runtime;
//   - chan+mutex: the same channel, plus a section of a sync.Mutex in each
//     Acquire and each Release: the least that a semaphore pays which keeps
//     its queue under a lock of its own, as one with weights must;
//   - fifo: the least a semaphore with weighted's guarantees does (see
//     fifo): a queue of any weights under a mutex, one channel per waiter
//     to wake it, nodes reused; no context, no fast path, no observation;
//   - add1ctx to add5pool: fifo with weighted's features added one at a
//     time, each to the one before (see addCtx and what follows it);
//     add1lazy is addCtx with a cheaper design of contexts (see addLazy);
//   - weighted;
//   - xsync: golang.org/x/sync/semaphore's Weighted, with the same
//     guarantees, which allocates a list element and a channel per wait.
//
// With weights (see handOffWeights), 16 goroutines on size 8 cycle
// Acquire(w) and Release(w), w from 1 to 4, with nothing done while they
// hold the permits, as in the harness's goroutines=16/size=8/weights=1-4;
// only the contenders that serve weights run it, from fifo on.
//
// Each reports its process CPU time per operation besides (see reportCPU).
func BenchmarkHandOff(b *testing.B) {
	contenders := []contender{
		{"chan", func(size int64) sem.Semaphore { return make(acquiretest.RawChan, size) }},
		{"chan+mutex", func(size int64) sem.Semaphore { return &lockedChan{c: make(chan struct{}, size)} }},
		{"fifo", func(size int64) sem.Semaphore { return &fifo{free: size} }},
		{"add1ctx", func(size int64) sem.Semaphore { return &addCtx{free: size} }},
		{"add1lazy", func(size int64) sem.Semaphore { return newAddLazy(size) }},
		{"add2state", newAddState},
		{"add3checks", func(size int64) sem.Semaphore { return newAddChecks(size) }},
		{"add4hook", func(size int64) sem.Semaphore { return newAddHook(size) }},
		{"add5pool", func(size int64) sem.Semaphore { return newAddPool(size) }},
		{"weighted", func(size int64) sem.Semaphore { return weighted.New(size) }},
		{"xsync", func(size int64) sem.Semaphore { return semaphore.NewWeighted(size) }},
	}
	for _, c := range contenders {
		b.Run("size=1/impl="+c.name, func(b *testing.B) {
			reportCPU(b, func() { acquiretest.BenchConvoy(b, c.new(1), 16) })
		})
	}
	for _, c := range contenders {
		b.Run("size=4/impl="+c.name, func(b *testing.B) {
			reportCPU(b, func() { convoy(b, c.new(4), 4, 64) })
		})
	}
	handOffWeights(b)
}

// reportCPU runs bench and reports the process CPU time it used per
// operation as cpu-ns/op: on a machine shared with other work, wall time
// per operation counts the time the benchmark waited for a processor, and
// CPU time does not. It counts the setup too, which is a few goroutines
// against b.N cycles. It reports besides, as lockwait-ns/op, the time
// goroutines spent blocked on a lock per operation: on a sync.Mutex, or
// on a lock of the runtime's such as a channel's (runtime/metrics'
// lockWait).
func reportCPU(b *testing.B, bench func()) {
	start, ok := processCPU()
	waited := lockWait()
	bench()
	if end, _ := processCPU(); ok && b.N > 0 {
		b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
	}
	if b.N > 0 {
		b.ReportMetric((lockWait()-waited)*1e9/float64(b.N), "lockwait-ns/op")
	}
}

// lockWait is the process's cumulative time blocked on locks, in seconds.
func lockWait() float64 {
	sample := []metrics.Sample{{Name: "/sync/mutex/wait/total:seconds"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return sample[0].Value.Float64()
}

// convoy runs b.N Acquire(1)+spin+Release(1) cycles on s, a semaphore of
// the given size, from the given number of goroutines, which start queued
// behind all the permits (see acquiretest.Queued).
func convoy(b *testing.B, s sem.Semaphore, size int64, goroutines int) {
	ctx := context.Background()
	acquiretest.Queued(b, s, size, goroutines, func(_, n int) {
		for range n {
			if err := s.Acquire(ctx, 1); err != nil {
				panic(fmt.Sprintf("Acquire(1): %v", err))
			}
			spin()
			s.Release(1)
		}
	})
}

// sink keeps spin's loop from being optimized away.
var sink int

// spin is a short hold of the permit that neither blocks nor yields.
func spin() {
	x := 0
	for i := range 50 {
		x += i * i
	}
	if x == -1 {
		sink = x
	}
}

// lockedChan is acquiretest.RawChan plus a mutex section in each call, which counts
// the calls as a queue's bookkeeping would.
type lockedChan struct {
	mu    sync.Mutex
	calls int
	c     chan struct{}
}

func (l *lockedChan) Acquire(context.Context, int64) error {
	l.count()
	l.c <- struct{}{}
	return nil
}

func (l *lockedChan) TryAcquire(int64) bool {
	l.count()
	return acquiretest.RawChan(l.c).TryAcquire(1)
}

func (l *lockedChan) Release(int64) {
	l.count()
	<-l.c
}

func (l *lockedChan) count() {
	l.mu.Lock()
	l.calls++
	l.mu.Unlock()
}
