package adaptive_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

// BenchmarkAcquireRelease compares one uncontended Acquire+Release through
// the sem.Semaphore interface on a Limiter over weighted with the same pair
// on a bare weighted semaphore, in the same run; adaptive-token is
// Start+Done, the path that teaches the limit, which also draws whether to
// sample the request, and reads the clock and records a latency for the
// sampled ones.
func BenchmarkAcquireRelease(b *testing.B) {
	ctx := context.Background()
	subjects(b, func(b *testing.B, s sem.Semaphore) {
		for b.Loop() {
			if err := s.Acquire(ctx, 1); err != nil {
				b.Fatal(err)
			}
			s.Release(1)
		}
	}, func(b *testing.B, l *adaptive.Limiter) {
		for b.Loop() {
			tok, err := l.Start(ctx, 1)
			if err != nil {
				b.Fatal(err)
			}
			tok.Done(true)
		}
	})
}

// BenchmarkAcquireReleaseParallel is BenchmarkAcquireRelease from every
// processor at once: what a request's way through the Limiter shares with
// the others' shows here, on top of the wrapped semaphore's own state.
func BenchmarkAcquireReleaseParallel(b *testing.B) {
	ctx := context.Background()
	subjects(b, func(b *testing.B, s sem.Semaphore) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := s.Acquire(ctx, 1); err != nil {
					b.Error(err)
					return
				}
				s.Release(1)
			}
		})
	}, func(b *testing.B, l *adaptive.Limiter) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				tok, err := l.Start(ctx, 1)
				if err != nil {
					b.Error(err)
					return
				}
				tok.Done(true)
			}
		})
	})
}

// subjects runs pair on a bare weighted semaphore and on a Limiter over
// weighted, and token on another such Limiter, each as a sub-benchmark
// named by its impl, with allocations reported.
func subjects(b *testing.B, pair func(*testing.B, sem.Semaphore), token func(*testing.B, *adaptive.Limiter)) {
	b.Run("impl=weighted", func(b *testing.B) {
		b.ReportAllocs()
		pair(b, weighted.New(64))
	})
	b.Run("impl=adaptive", func(b *testing.B) {
		b.ReportAllocs()
		pair(b, adaptive.New(weighted.New(1), 64, &adaptive.Vegas{}))
	})
	b.Run("impl=adaptive-token", func(b *testing.B) {
		b.ReportAllocs()
		token(b, adaptive.New(weighted.New(1), 64, &adaptive.Vegas{}))
	})
}
