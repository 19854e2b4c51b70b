package weighted_test

import (
	"context"
	"sync"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/acquiretest"
	"github.com/semacat/sem/weighted"
)

// BenchmarkHandOff measures what weighted pays for a FIFO hand-off on top
// of a raw channel's, in the convoy every FIFO semaphore settles into under
// contention: 16 goroutines cycle Acquire(1) and Release(1) on a semaphore
// of size 1, so every Acquire parks and every Release wakes the next in
// line. Compare the contenders with benchstat -col /impl:
//
//   - chan: a raw buffered channel, whose lock is its queue's lock too: the
//     floor of a FIFO hand-off without access to the runtime;
//   - chan+mutex: the same channel, plus a section of a sync.Mutex in each
//     Acquire and each Release: the least that a semaphore pays which keeps
//     its queue under a lock of its own, as one with weights must;
//   - weighted.
func BenchmarkHandOff(b *testing.B) {
	contenders := []struct {
		name string
		new  func() sem.Semaphore
	}{
		{"chan", func() sem.Semaphore { return make(rawChan, 1) }},
		{"chan+mutex", func() sem.Semaphore { return &lockedChan{c: make(chan struct{}, 1)} }},
		{"weighted", func() sem.Semaphore { return weighted.New(1) }},
	}
	for _, c := range contenders {
		b.Run("impl="+c.name, func(b *testing.B) { convoy(b, c.new()) })
	}
}

// convoy runs b.N Acquire(1)+Release(1) cycles on s, a semaphore of size 1,
// from 16 goroutines that start queued behind a permit held until the timer
// starts.
func convoy(b *testing.B, s sem.Semaphore) {
	const goroutines = 16
	ctx := context.Background()
	b.ReportAllocs()
	if err := s.Acquire(ctx, 1); err != nil {
		b.Fatal(err)
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
			for range n {
				if err := s.Acquire(ctx, 1); err != nil {
					b.Error(err)
					return
				}
				s.Release(1)
			}
		})
	}
	started.Wait()
	b.ResetTimer()
	s.Release(1)
	done.Wait()
}

// rawChan is the hand-written channel semaphore: a send to acquire, a
// receive to release.
type rawChan chan struct{}

func (c rawChan) Acquire(context.Context, int64) error { c <- struct{}{}; return nil }
func (c rawChan) TryAcquire(int64) bool {
	select {
	case c <- struct{}{}:
		return true
	default:
		return false
	}
}
func (c rawChan) Release(int64) { <-c }

// lockedChan is rawChan plus a mutex section in each call, which counts
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
	return rawChan(l.c).TryAcquire(1)
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

// BenchmarkUncontended is the fast paths of Acquire and Release, which
// look at the context between the load of the state and the swap that
// takes the permits.
func BenchmarkUncontended(b *testing.B) {
	acquiretest.BenchUncontended(b, func(size int64) sem.Semaphore { return weighted.New(size) })
}
