package reftest

import (
	"context"
	"fmt"

	"github.com/semacat/sem"
)

// gathering is the naive channel semaphore: one buffered slot per permit, and
// a request of n permits takes its slots one send at a time. Two review
// findings are built into it: a TryAcquire can pass a waiter between two of
// its sends, and Release counts the slots a waiter has gathered as held by
// the releasing caller.
type gathering struct {
	slots chan struct{}
}

// NewGathering returns the naive channel semaphore, with its two findings.
// Its panics name the package "ref".
func NewGathering(size int64) sem.Semaphore {
	if size < 1 {
		panic(fmt.Sprintf("ref: New(%d): size must be at least 1", size))
	}
	return &gathering{slots: make(chan struct{}, size)}
}

func (c *gathering) Acquire(ctx context.Context, n int64) error {
	if n < 0 {
		panic(fmt.Sprintf("ref: Acquire(%d): negative weight", n))
	}
	if n > int64(cap(c.slots)) {
		return fmt.Errorf("ref: Acquire(%d) exceeds size %d: %w", n, cap(c.slots), sem.ErrExceedsSize)
	}
	if err := ctx.Err(); err != nil || n == 0 {
		return err
	}
	for got := range n {
		select {
		case c.slots <- struct{}{}:
		case <-ctx.Done():
			c.giveBack(got)
			return ctx.Err()
		}
	}
	return nil
}

func (c *gathering) TryAcquire(n int64) bool {
	if n < 0 {
		panic(fmt.Sprintf("ref: TryAcquire(%d): negative weight", n))
	}
	for got := range n {
		select {
		case c.slots <- struct{}{}:
		default:
			c.giveBack(got)
			return false
		}
	}
	return true
}

func (c *gathering) Release(n int64) {
	if n < 0 {
		panic(fmt.Sprintf("ref: Release(%d): negative weight", n))
	}
	if n > int64(len(c.slots)) { // counts the slots a waiter has gathered
		panic(fmt.Sprintf("ref: Release(%d): released more than held", n))
	}
	c.giveBack(n)
}

func (c *gathering) giveBack(n int64) {
	for range n {
		<-c.slots
	}
}
