package spinsem_test

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/semacat/sem/internal/busy"
	"github.com/semacat/sem/spinsem"
)

// A large request completes while small requests hammer the semaphore with
// real parallelism. Each hammer goes hand over hand: it takes its next permit
// with TryAcquire before it gives back the one it holds, and only when that
// fails releases first and then waits in Acquire. In normal mode some permit
// is therefore always held and the large request could wait forever;
// starvation mode makes TryAcquire fail and the hammers queue behind it. The
// wait is logged; its speed is measured by BenchmarkSpin/large-under-hammer,
// not asserted here.
func TestLargeRequestUnderHammer(t *testing.T) {
	const size, rounds = 8, 10
	s := spinsem.New(size)
	cycles, stop := startHammers(s, size)
	var worst time.Duration
	for i := range rounds {
		// Arrive in the middle of the storm.
		for c := cycles.Load(); cycles.Load() < c+100*size; {
			runtime.Gosched()
		}
		// The deadline only turns a starved request into a failure instead
		// of a hang; a correct implementation needs milliseconds.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		start := time.Now()
		err := s.Acquire(ctx, size)
		wait := time.Since(start)
		cancel()
		if !assert.NoError(t, err, "round %d: Acquire(%d) starved while %d goroutines cycled Acquire(1)", i, size, size) {
			break
		}
		worst = max(worst, wait)
		s.Release(size)
	}
	stop()
	t.Logf("worst wait of Acquire(%d) under %d hand-over-hand hammers: %v", size, size, worst)
	assert.Equal(t, int64(size), s.Available())
}

// BenchmarkLargeUnderHammer measures Acquire(8) on a semaphore of size 8
// while 8 goroutines go hand over hand on it (see startHammers), so that in
// normal mode some permit is always held and only starvation mode can serve
// it. One op is one Acquire(8)+Release(8), started after the hammers have
// made 800 steps; wait-ns/op is the mean wait and max-wait-ns the worst.
func BenchmarkLargeUnderHammer(b *testing.B) {
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

// startHammers starts n goroutines that go hand over hand on s: each takes
// its next permit with TryAcquire before it gives back the one it holds, and
// only when that fails releases first and then waits in Acquire. So in normal
// mode some permit is always held. cycles counts their steps; stop ends them
// and waits until they have returned their permits.
func startHammers(s *spinsem.Semaphore, n int) (cycles *atomic.Int64, stop func()) {
	cycles = new(atomic.Int64)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Acquire(context.Background(), 1); err != nil {
				panic(err)
			}
			for {
				select {
				case <-done:
					s.Release(1)
					return
				default:
				}
				busy.Work(50)
				if s.TryAcquire(1) {
					s.Release(1)
				} else {
					s.Release(1)
					if err := s.Acquire(context.Background(), 1); err != nil {
						panic(err)
					}
				}
				cycles.Add(1)
				runtime.Gosched()
			}
		}()
	}
	return cycles, func() { close(done); wg.Wait() }
}
