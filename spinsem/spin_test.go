package spinsem_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/semacat/sem/benchmarks"
	"github.com/semacat/sem/spinsem"
)

// spinVariants are the spin strategies BenchmarkSpin compares.
var spinVariants = []struct {
	name     string
	min, max int32
	yield    bool
	iters    int
	adaptive bool
}{
	{"none", 0, 0, false, 0, false},
	{"yield-4", 4, 4, true, 0, false},
	{"yield-adaptive", 4, 64, true, 0, true},
	{"busy30-4", 4, 4, false, 30, false},
	{"busy30-adaptive64", 4, 64, false, 30, true},
	{"busy30-adaptive16", 4, 16, false, 30, true}, // the default
	{"busy100-8", 8, 8, false, 100, false},
}

// BenchmarkSpin runs the harness scenarios and the large request under a
// hammer with each spin strategy. Compare with `benchstat -col /spin`.
func BenchmarkSpin(b *testing.B) {
	for _, sc := range benchmarks.Scenarios {
		for _, v := range spinVariants {
			b.Run(sc.Name+"/spin="+v.name, func(b *testing.B) {
				defer spinsem.SpinConfig(v.min, v.max, v.yield, v.iters, v.adaptive)()
				sc.Run(b, spinsem.New(sc.Size))
			})
		}
	}
	for _, yield := range []bool{false, true} {
		for _, v := range spinVariants {
			b.Run(fmt.Sprintf("large-under-hammer/yield=%v/spin=%s", yield, v.name), func(b *testing.B) {
				defer spinsem.SpinConfig(v.min, v.max, v.yield, v.iters, v.adaptive)()
				largeUnderHammer(b, yield)
			})
		}
	}
}

// largeUnderHammer measures Acquire(size) on a semaphore of size 8 while 16
// goroutines cycle Acquire(1)+Release(1); one op is one Acquire(8)+Release(8).
// It reports the worst wait as max-ns. With yield, each hammer calls
// runtime.Gosched after each cycle, as a goroutine that blocks now and then
// would; without it, the hammers leave the processor only when the
// scheduler preempts them (every 10ms), so a goroutine that is woken may
// wait that long for a processor, whatever the semaphore does.
func largeUnderHammer(b *testing.B, yield bool) {
	const size, hammers = 8, 16
	s := spinsem.New(size)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var cycles atomic.Int64
	for range hammers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = s.Acquire(context.Background(), 1)
				s.Release(1)
				cycles.Add(1)
				if yield {
					runtime.Gosched()
				}
			}
		}()
	}
	for cycles.Load() < 1000*hammers {
		time.Sleep(10 * time.Microsecond)
	}
	b.ReportAllocs()
	var worst, total time.Duration
	for range b.N {
		// Let the hammers run a while between large requests, so that each
		// one arrives in the middle of the storm.
		for c := cycles.Load(); cycles.Load() < c+100*hammers; {
			runtime.Gosched()
		}
		start := time.Now()
		_ = s.Acquire(context.Background(), size)
		wait := time.Since(start)
		total += wait
		worst = max(worst, wait)
		s.Release(size)
	}
	close(stop)
	wg.Wait()
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "wait-ns/op")
	b.ReportMetric(float64(worst.Nanoseconds()), "max-wait-ns")
}
