package chansem_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/internal/acquiretest"
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

// BenchmarkFloor measures what chansem pays on top of a raw channel, both
// uncontended (one goroutine) and in the convoy of 16 goroutines on a
// semaphore of size 1. Compare the contenders with benchstat -col /impl:
//
//   - chan: a raw buffered channel, a send to acquire and a receive to
//     release;
//   - chan+count: the same channel, plus an atomic count of the permits
//     held, added to after the send and taken from with a compare-and-swap
//     that refuses an over-release before the receive: the least that
//     exact over-release detection costs, since the buffer's length also
//     counts slots not yet held;
//   - chansem.
func BenchmarkFloor(b *testing.B) {
	contenders := []struct {
		name string
		new  func() sem.Semaphore
	}{
		{"chan", func() sem.Semaphore { return make(acquiretest.RawChan, 1) }},
		{"chan+count", func() sem.Semaphore { return &countedChan{c: make(chan struct{}, 1)} }},
		{"chansem", func() sem.Semaphore { return chansem.New(1) }},
	}
	for _, goroutines := range []int{1, 16} {
		for _, c := range contenders {
			b.Run(fmt.Sprintf("goroutines=%d/impl=%s", goroutines, c.name), func(b *testing.B) {
				acquiretest.BenchConvoy(b, c.new(), goroutines)
			})
		}
	}
}

// countedChan is acquiretest.RawChan with an exact count of the permits held.
type countedChan struct {
	held atomic.Int64
	c    chan struct{}
}

func (c *countedChan) Acquire(context.Context, int64) error {
	c.c <- struct{}{}
	c.held.Add(1)
	return nil
}

func (c *countedChan) TryAcquire(int64) bool {
	if !acquiretest.RawChan(c.c).TryAcquire(1) {
		return false
	}
	c.held.Add(1)
	return true
}

func (c *countedChan) Release(int64) {
	for {
		held := c.held.Load()
		if held < 1 {
			panic("countedChan: released more than held")
		}
		if c.held.CompareAndSwap(held, held-1) {
			break
		}
	}
	<-c.c
}

// BenchmarkUncontended is the fast paths of Acquire(1) and Release(1): a
// look at the context, a non-blocking send, and a second look before the
// slot is counted held.
func BenchmarkUncontended(b *testing.B) {
	acquiretest.BenchUncontended(b, func(size int64) sem.Semaphore { return chansem.New(size) })
}
