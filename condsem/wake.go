package condsem

import (
	"context"
	"sync"
)

// wakeOnDone arranges for every waiter on c to be woken once ctx is done,
// and returns the function that cancels the arrangement. Acquire calls it
// only once it knows it must wait, with c.L held, and calls stop before it
// returns, so no registration outlives the call: an Acquire that takes the
// fast path registers nothing, and a context used for millions of Acquire
// calls accumulates nothing. If stop reports false the callback has already
// started; it does no more than a spurious Broadcast, which waiters tolerate
// because they always recheck their condition.
//
// A context that can never be done (Done returns nil, as for
// context.Background) needs no arrangement, and registering one would only
// cost allocations on every wait.
//
// The callback takes c.L before it broadcasts, and that is what makes it
// correct. A waiter checks ctx.Err() and then calls c.Wait, both under c.L.
// Were the callback to broadcast without the lock, it could run between
// those two steps: the waiter has seen a nil error, the Broadcast finds
// nobody waiting yet, and then the waiter parks with no wake-up ever to
// come, though its context is done. Holding c.L, the callback can only
// broadcast before the check, which then sees the error, or after Wait has
// queued the waiter, which the Broadcast then wakes.
func wakeOnDone(ctx context.Context, c *sync.Cond) (stop func() bool) {
	if ctx.Done() == nil {
		return neverStarted
	}
	return context.AfterFunc(ctx, func() {
		c.L.Lock()
		c.Broadcast()
		c.L.Unlock()
	})
}

func neverStarted() bool { return true }
