package classics

import (
	"context"
	"fmt"
	"sync"

	"github.com/semacat/sem/weighted"
)

// Buffer is a bounded first-in, first-out queue shared by any number of
// producers and consumers: the producer-consumer problem.
//
// Two counting semaphores do the waiting. free counts the empty slots and
// starts with all of them; stored counts the items and starts with none
// (weighted.NewAvailable(capacity, 0)). Put takes a permit of free, stores
// the item and releases a permit of stored; Take does the reverse. So a
// producer waits only while the buffer is full and a consumer only while it
// is empty, and free plus stored never exceeds the capacity. A mutex guards
// the ring itself, for the few instructions that move an item; nobody waits
// while holding it.
//
// Both semaphores are weighted, which serves waiters in arrival order:
// producers store, and consumers take, in the order they started to wait.
type Buffer[T any] struct {
	free   *weighted.Semaphore // empty slots; a producer takes one
	stored *weighted.Semaphore // items; a consumer takes one

	mu    sync.Mutex
	ring  []T
	head  int // index of the oldest item
	count int // items in the ring
}

// NewBuffer returns an empty buffer that holds up to capacity items. It
// panics if capacity is less than 1.
func NewBuffer[T any](capacity int) *Buffer[T] {
	if capacity < 1 {
		panic(fmt.Sprintf("classics: NewBuffer: capacity %d, want at least 1", capacity))
	}
	return &Buffer[T]{
		free:   weighted.New(int64(capacity)),
		stored: weighted.NewAvailable(int64(capacity), 0),
		ring:   make([]T, capacity),
	}
}

// Put appends v, waiting while the buffer is full. If ctx is done first, Put
// returns ctx.Err() and the buffer is unchanged.
func (b *Buffer[T]) Put(ctx context.Context, v T) error {
	if err := b.free.Acquire(ctx, 1); err != nil {
		return err
	}
	b.mu.Lock()
	b.ring[(b.head+b.count)%len(b.ring)] = v
	b.count++
	b.mu.Unlock()
	b.stored.Release(1)
	return nil
}

// Take removes and returns the oldest item, waiting while the buffer is
// empty. If ctx is done first, Take returns ctx.Err() and the buffer is
// unchanged.
func (b *Buffer[T]) Take(ctx context.Context) (T, error) {
	var v T
	if err := b.stored.Acquire(ctx, 1); err != nil {
		return v, err
	}
	b.mu.Lock()
	v, b.ring[b.head] = b.ring[b.head], v // clear the slot for the collector
	b.head = (b.head + 1) % len(b.ring)
	b.count--
	b.mu.Unlock()
	b.free.Release(1)
	return v, nil
}

// Len returns the number of items stored, a snapshot.
func (b *Buffer[T]) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.count
}
