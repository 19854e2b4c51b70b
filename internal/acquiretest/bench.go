package acquiretest

import (
	"context"
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
