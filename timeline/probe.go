package timeline

import (
	"context"
	"sync"
	"time"
)

// probeCtx is the context a lane passes to the semaphore: it behaves as the
// caller's context and notes when the semaphore looked at its Err. Done and
// Value go to the embedded context unchanged, so context.AfterFunc still
// registers with the caller's context directly, and a context that can
// never be done still reports a nil Done.
type probeCtx struct {
	context.Context
	mu      sync.Mutex
	lookups []time.Time
}

// Err notes the lookup and returns the caller's context's error.
func (c *probeCtx) Err() error {
	now := time.Now()
	c.mu.Lock()
	c.lookups = append(c.lookups, now)
	c.mu.Unlock()
	return c.Context.Err()
}

// seen returns the times of the lookups so far.
func (c *probeCtx) seen() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lookups
}
