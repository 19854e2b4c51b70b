package timeline

import (
	"context"
	"sync"
	"time"
)

// probeCtx is the context a lane passes to the semaphore: it behaves as the
// caller's context and notes when the semaphore looked at its Err, and, if
// done is set, at its Done. Done and Value return what the embedded context
// returns, so context.AfterFunc still registers with the caller's context
// directly, and a context that can never be done still reports a nil Done.
type probeCtx struct {
	context.Context
	done    bool // note the Done lookups too
	mu      sync.Mutex
	lookups []time.Time
}

// Done notes the lookup if asked to, and returns the caller's context's
// Done channel.
func (c *probeCtx) Done() <-chan struct{} {
	if c.done {
		c.note()
	}
	return c.Context.Done()
}

// Err notes the lookup and returns the caller's context's error.
func (c *probeCtx) Err() error {
	c.note()
	return c.Context.Err()
}

// note records a lookup, now.
func (c *probeCtx) note() {
	now := time.Now()
	c.mu.Lock()
	c.lookups = append(c.lookups, now)
	c.mu.Unlock()
}

// seen returns the times of the lookups so far.
func (c *probeCtx) seen() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lookups
}
