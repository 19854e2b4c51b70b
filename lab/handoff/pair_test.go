package handoff

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sync/semaphore"

	"github.com/semacat/sem"
	"github.com/semacat/sem/weighted"
)

// BenchmarkPair is the harness's goroutines=2/size=4/work=short: two
// goroutines cycle Acquire(1), a short busy loop, Release(1) on 4 permits,
// so nobody ever waits, and at GOMAXPROCS=2 the two run at once. It asks
// why weighted, whose fast paths take no mutex there, costs more per
// cycle than x/sync, which locks one on every call. Beside them:
//
//   - casword: weighted's fast paths alone (the state word, a load, the
//     context, a compare-and-swap), counting the swaps that fail because
//     the other goroutine changed the word since the load (casfail/op);
//   - casword+mutex: the same, each call inside a sync.Mutex, which
//     serialises the two goroutines as x/sync's mutex does.
//
// Read ns/op beside cpu-ns/op (see reportCPU): a contender whose two
// goroutines run at once uses about two processors, cpu-ns/op twice
// ns/op; one whose goroutines take turns uses about one.
func BenchmarkPair(b *testing.B) {
	contenders := []contender{
		{"weighted", func(size int64) sem.Semaphore { return weighted.New(size) }},
		{"xsync", func(size int64) sem.Semaphore { return semaphore.NewWeighted(size) }},
		{"casword", func(size int64) sem.Semaphore { return newCasWord(size) }},
		{"casword+mutex", func(size int64) sem.Semaphore { return &lockedCasWord{w: newCasWord(size)} }},
	}
	for _, c := range contenders {
		b.Run("impl="+c.name, func(b *testing.B) {
			s := c.new(4)
			reportCPU(b, func() { pair(b, s) })
			if w, ok := s.(*casWord); ok {
				b.ReportMetric(float64(w.failed.Load())/float64(b.N), "casfail/op")
			}
			if l, ok := s.(*lockedCasWord); ok {
				b.ReportMetric(float64(l.w.failed.Load())/float64(b.N), "casfail/op")
			}
		})
	}
}

// pair runs b.N Acquire(1)+spin+Release(1) cycles on s from two goroutines.
func pair(b *testing.B, s sem.Semaphore) {
	b.ReportAllocs()
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 2 {
		n := b.N / 2
		if i < b.N%2 {
			n++
		}
		wg.Go(func() {
			for range n {
				if err := s.Acquire(ctx, 1); err != nil {
					panic(err)
				}
				spin()
				s.Release(1)
			}
		})
	}
	wg.Wait()
}

// casWord is weighted's uncontended paths alone: the free permits in an
// atomic word beside the size, an Acquire that loads the word, looks at
// its context and swaps, a Release that loads the word and the size and
// swaps. It never blocks: a request that does not fit spins, which the
// pair never makes. failed counts the swaps that lost to the other
// goroutine; it sits on a cache line of its own, so that counting adds
// traffic only when a swap fails.
type casWord struct {
	state  atomic.Uint64 // free<<1, as weighted's with the slow bit clear
	size   atomic.Int64
	_      [48]byte
	failed atomic.Int64
}

func newCasWord(size int64) *casWord {
	w := &casWord{}
	w.size.Store(size)
	w.state.Store(uint64(size) << 1)
	return w
}

func (w *casWord) Acquire(ctx context.Context, n int64) error {
	if size := w.size.Load(); n > size {
		return sem.ErrExceedsSize
	}
	for {
		old := w.state.Load()
		if int64(old>>1) < n {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if w.state.CompareAndSwap(old, old-uint64(n)<<1) {
			return nil
		}
		w.failed.Add(1)
	}
}

func (w *casWord) TryAcquire(n int64) bool {
	old := w.state.Load()
	return int64(old>>1) >= n && w.state.CompareAndSwap(old, old-uint64(n)<<1)
}

func (w *casWord) Release(n int64) {
	for {
		old := w.state.Load()
		if n > w.size.Load()-int64(old>>1) {
			panic("casWord: Release of more than held")
		}
		if w.state.CompareAndSwap(old, old+uint64(n)<<1) {
			return
		}
		w.failed.Add(1)
	}
}

// lockedCasWord is casWord with each call inside a mutex.
type lockedCasWord struct {
	mu sync.Mutex
	w  *casWord
}

func (l *lockedCasWord) Acquire(ctx context.Context, n int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Acquire(ctx, n)
}

func (l *lockedCasWord) TryAcquire(n int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.TryAcquire(n)
}

func (l *lockedCasWord) Release(n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Release(n)
}
