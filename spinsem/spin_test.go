package spinsem_test

import (
	"context"
	"runtime"
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
	for _, v := range spinVariants {
		b.Run("large-under-hammer/spin="+v.name, func(b *testing.B) {
			defer spinsem.SpinConfig(v.min, v.max, v.yield, v.iters, v.adaptive)()
			largeUnderHammer(b)
		})
	}
}

// largeUnderHammer measures Acquire(8) on a semaphore of size 8 while 8
// goroutines go hand over hand on it (see startHammers), so that in normal
// mode some permit is always held. One op is one Acquire(8)+Release(8),
// started after the hammers have made 800 steps; wait-ns/op is the mean
// wait and max-wait-ns the worst.
func largeUnderHammer(b *testing.B) {
	const size = 8
	s := spinsem.New(size)
	cycles, stop := startHammers(s, size)
	b.ReportAllocs()
	var worst, total time.Duration
	for range b.N {
		for c := cycles.Load(); cycles.Load() < c+100*size; {
			runtime.Gosched()
		}
		start := time.Now()
		_ = s.Acquire(context.Background(), size)
		wait := time.Since(start)
		total += wait
		worst = max(worst, wait)
		s.Release(size)
	}
	stop()
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "wait-ns/op")
	b.ReportMetric(float64(worst.Nanoseconds()), "max-wait-ns")
}
