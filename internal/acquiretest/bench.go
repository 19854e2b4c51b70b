package acquiretest

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/semacat/sem"
)

// BenchUncontended runs one goroutine's Acquire(ctx, 1) and Release(1) on a
// semaphore of size 1 that nobody else uses: the fast paths, with a context
// that can never be done (context.Background) and with one that can
// (context.WithCancel), whose look costs more. newSem makes the semaphore.
func BenchUncontended(b *testing.B, newSem func(size int64) sem.Semaphore) {
	cancelable, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
	}{
		{"ctx=background", context.Background()},
		{"ctx=cancelable", cancelable},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := newSem(1)
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Acquire(c.ctx, 1); err != nil {
					b.Fatal(err)
				}
				s.Release(1)
			}
		})
	}
}

// BenchConvoy runs b.N Acquire(1)+Release(1) cycles on s, a semaphore of
// size 1, from the given number of goroutines, which start queued behind a
// permit held until the timer starts: the convoy in which every contended
// Acquire parks and is handed the permit.
func BenchConvoy(b *testing.B, s sem.Semaphore, goroutines int) {
	ctx := context.Background()
	Queued(b, s, 1, goroutines, func(_, n int) {
		for range n {
			if err := s.Acquire(ctx, 1); err != nil {
				b.Error(err)
				return
			}
			s.Release(1)
		}
	})
}

// The weights scenario of the harness (goroutines=16/size=8/weights=1-4),
// as BenchWeights runs it: WeightsGoroutines goroutines on WeightsSize
// permits, each Acquire taking 1 to WeightsMax, nothing done while they
// are held.
const (
	WeightsGoroutines = 16
	WeightsSize       = 8
	WeightsMax        = 4
)

// BenchWeights runs the weights scenario on s, a semaphore of WeightsSize
// permits: b.N Acquire(w)+Release(w) cycles with ctx from
// WeightsGoroutines goroutines, which start queued behind all the permits
// (see Queued). Goroutine i's k-th Acquire takes 1+(i+k)%WeightsMax: each
// goroutine cycles through the weights from its own starting point, so
// that every semaphore is asked for the same weights in the same order by
// each goroutine, and the goroutines ask for different weights at once.
func BenchWeights(b *testing.B, ctx context.Context, s sem.Semaphore) {
	Queued(b, s, WeightsSize, WeightsGoroutines, func(i, n int) {
		for k := range n {
			w := 1 + int64((i+k)%WeightsMax)
			if err := s.Acquire(ctx, w); err != nil {
				panic(fmt.Sprintf("Acquire(%d): %v", w, err))
			}
			s.Release(w)
		}
	})
}

// Queued runs a benchmark of b.N cycles on s, a semaphore of the given
// size, from the given number of goroutines: goroutine i runs cycles(i, n)
// for its n of the b.N cycles. They start queued behind all the permits,
// held one by one until the timer starts and then given back one by one,
// so that a semaphore with a fast path cannot run its first cycles with
// nobody waiting, a regime it might keep. It reports allocations.
func Queued(b *testing.B, s sem.Semaphore, size int64, goroutines int, cycles func(i, n int)) {
	ctx := context.Background()
	b.ReportAllocs()
	for range size {
		if err := s.Acquire(ctx, 1); err != nil {
			b.Fatal(err)
		}
	}
	var started, done sync.WaitGroup
	for i := range goroutines {
		n := b.N / goroutines
		if i < b.N%goroutines {
			n++
		}
		started.Add(1)
		done.Go(func() {
			started.Done()
			cycles(i, n)
		})
	}
	started.Wait()
	// Let each goroutine run into its first Acquire, which blocks.
	for range goroutines {
		runtime.Gosched()
	}
	b.ResetTimer()
	for range size {
		s.Release(1)
	}
	done.Wait()
}

// RawChan is the hand-written channel semaphore a strategy's floor is
// measured against: a send to acquire, a receive to release. It ignores
// the context and the weight, so it serves only single-permit cycles.
type RawChan chan struct{}

// Acquire sends to c.
func (c RawChan) Acquire(context.Context, int64) error { c <- struct{}{}; return nil }

// TryAcquire sends to c if it can at once.
func (c RawChan) TryAcquire(int64) bool {
	select {
	case c <- struct{}{}:
		return true
	default:
		return false
	}
}

// Release receives from c.
func (c RawChan) Release(int64) { <-c }
