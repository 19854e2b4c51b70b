package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// Buffer is a bounded buffer for producers and consumers: Put waits while
// the buffer is full, Take while it is empty, and items come out in the
// order they went in.
type Buffer[T any] struct {
	spaces sem.Semaphore // one permit per empty slot
	items  sem.Semaphore // one permit per stored item
	mutex  sem.Semaphore // one permit: guards ring, head and stored
	ring   []T
	head   int // the oldest item
	stored int
}

// NewBuffer returns an empty buffer of capacity items.
func NewBuffer[T any](newSemaphore NewSemaphore, capacity int) *Buffer[T] {
	return &Buffer[T]{
		spaces: newSemaphore(int64(capacity), int64(capacity)),
		items:  newSemaphore(int64(capacity), 0),
		mutex:  newSemaphore(1, 1),
		ring:   make([]T, capacity),
	}
}

// Put waits for an empty slot and stores item.
func (b *Buffer[T]) Put(ctx context.Context, item T) error {
	if err := b.spaces.Acquire(ctx, 1); err != nil {
		return err
	}
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	b.ring[(b.head+b.stored)%len(b.ring)] = item
	b.stored++
	b.mutex.Release(1)
	b.items.Release(1)
	return nil
}

// Take waits for an item and removes the oldest.
func (b *Buffer[T]) Take(ctx context.Context) (T, error) {
	var item T
	if err := b.items.Acquire(ctx, 1); err != nil {
		return item, err
	}
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return item, err
	}
	item = b.ring[b.head]
	b.head = (b.head + 1) % len(b.ring)
	b.stored--
	b.mutex.Release(1)
	b.spaces.Release(1)
	return item, nil
}
