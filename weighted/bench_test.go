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
		{"chan", func() sem.Semaphore { return make(acquiretest.RawChan, 1) }},
		{"chan+mutex", func() sem.Semaphore { return &lockedChan{c: make(chan struct{}, 1)} }},
		{"weighted", func() sem.Semaphore { return weighted.New(1) }},
	}
	for _, c := range contenders {
		b.Run("impl="+c.name, func(b *testing.B) { acquiretest.BenchConvoy(b, c.new(), 16) })
	}
}

// lockedChan is acquiretest.RawChan plus a mutex section in each call, which counts
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
	return acquiretest.RawChan(l.c).TryAcquire(1)
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
