package timeline

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"sync"
	"time"
)

// probeCtx is the context a lane passes to the semaphore: it behaves as the
// caller's context and notes when the lane's own goroutine looked at its
// Err. Done and Value are the embedded context's, so context.AfterFunc
// still registers with the caller's context directly, and a context that
// can never be done still reports a nil Done.
//
// Only the lookups of the goroutine that called Acquire are noted: they are
// the waiter's own, made when it wakes. Other goroutines look at a waiter's
// context too, to decide at the grant whether a cancellation came first (a
// Release in weighted, a starvation hand-off in spinsem); those are not the
// waiter waking, and it sleeps on through them.
type probeCtx struct {
	context.Context
	owner uint64 // id of the goroutine whose lookups are noted

	mu      sync.Mutex
	lookups []time.Time
}

// newProbe returns a probe of ctx owned by the calling goroutine.
func newProbe(ctx context.Context) *probeCtx {
	return &probeCtx{Context: ctx, owner: goroutineID()}
}

// Err notes the lookup and returns the caller's context's error.
func (c *probeCtx) Err() error {
	c.note()
	return c.Context.Err()
}

// note records a lookup, now, if the owner made it.
func (c *probeCtx) note() {
	if goroutineID() != c.owner {
		return
	}
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

// goroutineID returns the id of the calling goroutine, read from the first
// line of its stack trace, "goroutine 18 [running]:". The runtime keeps
// goroutine ids to itself on purpose, and a library must not depend on
// them; this development tool reads one only to tell a waiter's own
// lookups of its context from those of other goroutines, in recordings
// made for pictures, where the cost of formatting a stack header does not
// matter.
func goroutineID() uint64 {
	var buf [64]byte
	header := buf[:runtime.Stack(buf[:], false)]
	header = bytes.TrimPrefix(header, []byte("goroutine "))
	digits, _, _ := bytes.Cut(header, []byte(" "))
	id, err := strconv.ParseUint(string(digits), 10, 64)
	if err != nil {
		panic("timeline: no goroutine id in the stack header " + strconv.Quote(string(buf[:])))
	}
	return id
}
