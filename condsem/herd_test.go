package condsem_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/condsem"
	"github.com/semacat/sem/internal/busy"
)

// BenchmarkHerd shows what Broadcast costs as waiters pile up. Goroutines
// share a semaphore of size 1 and cycle Acquire, a short piece of work,
// Release, so that while one works the others park.
//
// In the fair variant every Release hands the permit to the head of the
// queue, a sleeping goroutine that must run before anyone proceeds, and the
// Broadcast that wakes it wakes every other waiter too; each of them runs,
// rechecks and parks again. The time per op grows in proportion to the
// number of goroutines: the thundering herd in its plain form.
//
// The plain variant hides the herd behind its unfairness. The goroutine
// that releases takes the permit straight back on its fast path, and a
// waiter that was woken but has not run yet is no longer on the wait list,
// so later Broadcasts pass it over. The scheduler, not the number of
// waiters, bounds the wasted wake-ups, and the time per op stays nearly
// flat, paid for by waiters that lose the race again and again.
func BenchmarkHerd(b *testing.B) {
	impls := []struct {
		name string
		new  func(size int64) sem.Semaphore
	}{
		{"plain", func(size int64) sem.Semaphore { return condsem.New(size) }},
		{"fair", func(size int64) sem.Semaphore { return condsem.NewFair(size) }},
	}
	for _, impl := range impls {
		for _, goroutines := range []int{2, 8, 32, 128} {
			b.Run(fmt.Sprintf("impl=%s/goroutines=%d", impl.name, goroutines), func(b *testing.B) {
				s := impl.new(1)
				ctx := context.Background()
				var left atomic.Int64
				left.Store(int64(b.N))
				var wg sync.WaitGroup
				b.ReportAllocs()
				b.ResetTimer()
				for range goroutines {
					wg.Go(func() {
						for left.Add(-1) >= 0 {
							if err := s.Acquire(ctx, 1); err != nil {
								panic(err)
							}
							busy.Work(100)
							s.Release(1)
						}
					})
				}
				wg.Wait()
			})
		}
	}
}
