package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// unbounded keeps its items in a growing slice: nothing stops a producer.
type unbounded struct {
	mutex, items sem.Semaphore
	queue        []int
}

func (b *unbounded) Put(ctx context.Context, item int) error {
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	b.queue = append(b.queue, item)
	b.mutex.Release(1)
	b.items.Release(1)
	return nil
}

func (b *unbounded) Take(ctx context.Context) (int, error) {
	if err := b.items.Acquire(ctx, 1); err != nil {
		return 0, err
	}
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return 0, err
	}
	item := b.queue[0]
	b.queue = b.queue[1:]
	b.mutex.Release(1)
	return item, nil
}

// lockThenWait is the unbounded buffer with a bound, whose Take takes
// the mutex before it waits for an item: a consumer at an empty buffer
// shuts the producers out.
type lockThenWait struct {
	unbounded
	spaces sem.Semaphore
}

func (b *lockThenWait) Put(ctx context.Context, item int) error {
	if err := b.spaces.Acquire(ctx, 1); err != nil {
		return err
	}
	return b.unbounded.Put(ctx, item)
}

func (b *lockThenWait) Take(ctx context.Context) (int, error) {
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return 0, err
	}
	if err := b.items.Acquire(ctx, 1); err != nil {
		return 0, err
	}
	item := b.queue[0]
	b.queue = b.queue[1:]
	b.mutex.Release(1)
	b.spaces.Release(1)
	return item, nil
}

func TestProducerConsumer(t *testing.T) {
	type solution = func(check.NewSemaphore, int) judge.Buffer
	judgeAll(t, judge.Problem9,
		official(func(n check.NewSemaphore, capacity int) judge.Buffer { return solutions.NewBuffer[int](n, capacity) }, check.Right[solution]{Name: "Slice", Solution: func(n check.NewSemaphore, capacity int) judge.Buffer { return newSliceBuffer(n, capacity) }}),
		check.Wrong[solution]{
			Name: "Unbounded",
			Solution: func(n check.NewSemaphore, _ int) judge.Buffer {
				return &unbounded{mutex: n(1, 1), items: n(15, 0)}
			},
			Want: "items stored in a buffer of 3",
		},
		check.Wrong[solution]{
			Name: "LockThenWait",
			Solution: func(n check.NewSemaphore, capacity int) judge.Buffer {
				return &lockThenWait{
					unbounded: unbounded{mutex: n(1, 1), items: n(int64(capacity), 0)},
					spaces:    n(int64(capacity), int64(capacity)),
				}
			},
			Want: "deadlock",
		})
}
