package chansem_test

import (
	"context"
	"sync"
	"testing"

	"github.com/semacat/sem/chansem"
)

// BenchmarkContended is the path a Close would cost: 16 goroutines cycle
// Acquire(context.Background(), 1) and Release(1) on a semaphore of size 1,
// so nearly every Acquire parks, on a bare send. A close channel would put
// a second case in that send's select.
func BenchmarkContended(b *testing.B) {
	const goroutines = 16
	s := chansem.New(1)
	ctx := context.Background()
	b.ReportAllocs()
	var wg sync.WaitGroup
	for i := range goroutines {
		n := b.N / goroutines
		if i < b.N%goroutines {
			n++
		}
		wg.Go(func() {
			for range n {
				if err := s.Acquire(ctx, 1); err != nil {
					b.Error(err)
					return
				}
				s.Release(1)
			}
		})
	}
	wg.Wait()
}
