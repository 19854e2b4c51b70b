package condsem

import (
	"context"
	"sync"

	"github.com/semacat/sem/internal/waitq"
)

// cond is a condition variable whose wait also ends when a context is done:
// sync.Cond's Wait and Broadcast, with a wait that can be canceled.
//
// Each wait queues a waiter with a wake channel of its own, which has a
// buffer of one, and selects on that channel and the context's Done.
// Broadcast takes every queued waiter out and wakes it; a waiter taken out
// must wait again to be woken again, as with sync.Cond. Waiters are
// recycled through the queue's free list, so a wait allocates nothing once
// the list has grown to the largest number of goroutines that ever waited
// at once.
type cond struct {
	q waitq.Queue // guarded by the semaphore's mutex
}

// wait, called with mu held, releases mu, blocks until a broadcast or until
// ctx is done, and takes mu again before it returns. As with sync.Cond, the
// caller rechecks its condition when wait returns.
func (c *cond) wait(mu *sync.Mutex, ctx context.Context) {
	w := c.q.PushBack(ctx, 0)
	mu.Unlock()
	if done := ctx.Done(); done == nil {
		<-w.Woken() // a receive costs less than a select
	} else {
		select {
		case <-w.Woken():
		case <-done:
		}
	}
	mu.Lock()
	c.q.Remove(w)
	c.q.Recycle(w)
}

// broadcast, called with mu held, wakes every goroutine in wait.
func (c *cond) broadcast() {
	for w := c.q.Front(); w != nil; w = c.q.Front() {
		c.q.Remove(w)
		w.Wake()
	}
}
