package cancellation

import (
	"context"
	"sync"
)

// Wait waits on c until ready reports true or ctx is done, and returns nil
// or ctx's error. The caller holds c.L, and holds it again when Wait
// returns.
//
// sync.Cond.Wait cannot watch a context: it returns only on a Signal or a
// Broadcast. So Wait registers a function with context.AfterFunc that
// broadcasts when ctx ends, taking c.L first so that the broadcast cannot
// fall between a waiter's look at ctx and its going to sleep; and it stops
// that registration before returning, so that nothing is left behind on a
// context that outlives the wait. The context is looked at before the
// condition: a cancellation that came before the condition turned true
// wins, as a semaphore's contract wants of a cancellation that came before
// the grant.
func Wait(ctx context.Context, c *sync.Cond, ready func() bool) error {
	stop := context.AfterFunc(ctx, func() {
		c.L.Lock()
		defer c.L.Unlock()
		c.Broadcast()
	})
	defer stop()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if ready() {
			return nil
		}
		c.Wait()
	}
}
