package condsem

import (
	"context"
	"sync"

	"github.com/semacat/sem/internal/waitq"
)

// cond is a condition variable whose wait also ends when a context is done:
// sync.Cond's Wait and Broadcast, with a wait that can be canceled.
//
// A wait whose context can be done queues a waiter with a wake channel of
// its own, which has a buffer of one, and selects on that channel and the
// context's Done. Broadcast takes every queued waiter out and wakes it; a
// waiter taken out must wait again to be woken again, as with sync.Cond.
// Waiters are recycled through the queue's free list, so a wait allocates
// nothing once the list has grown to the largest number of goroutines that
// ever waited at once.
//
// A wait whose context can never be done waits on a sync.Cond instead,
// whose Broadcast readies all its waiters in one pass under one runtime
// lock, where the queue's waiters are woken one channel at a time: in a
// herd, that is most of the cost of a broadcast.
type cond struct {
	q       waitq.Queue // waits that can be canceled; guarded by the semaphore's mutex
	forever sync.Cond   // waits that cannot; L is the semaphore's mutex
}

// init makes mu the mutex that guards the condition: every wait releases
// it and takes it again.
func (c *cond) init(mu *sync.Mutex) { c.forever.L = mu }

// wait, called with the mutex held, releases it, blocks until a broadcast
// or until ctx is done, and takes the mutex again before it returns. As with
// sync.Cond, the caller rechecks its condition when wait returns.
func (c *cond) wait(ctx context.Context) {
	done := ctx.Done()
	if done == nil {
		c.forever.Wait()
		return
	}
	w := c.q.PushBack(ctx, 0)
	c.forever.L.Unlock()
	select {
	case <-w.Woken():
	case <-done:
	}
	c.forever.L.Lock()
	c.q.Remove(w)
	c.q.Recycle(w)
}

// broadcast, called with the mutex held, wakes every goroutine in wait.
func (c *cond) broadcast() {
	c.forever.Broadcast()
	for w := c.q.Front(); w != nil; w = c.q.Front() {
		c.q.Remove(w)
		w.Wake()
	}
}
