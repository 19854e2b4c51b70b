// Package acquiretest holds what the strategies' tests share. A Call runs
// an Acquire in a goroutine of its own, so that a test can start waiters,
// cancel them and watch them return, typically inside a testing/synctest
// bubble; CheckBadInputMessages and ConformanceNewAvailable run the checks
// that every strategy makes beyond its TestConformance.
package acquiretest

import (
	"context"

	"github.com/semacat/sem"
)

// Call is one Acquire(ctx, N) running in its own goroutine, with a context
// of its own.
type Call struct {
	// N is the number of permits asked for.
	N int64
	// Err is what Acquire returned, valid once Returned reports true.
	Err error

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

// Prepare makes a Call for n permits that has not started yet, so that a
// test hook may cancel it before Start runs it.
func Prepare(n int64) *Call {
	ctx, cancel := context.WithCancel(context.Background())
	return &Call{N: n, ctx: ctx, cancel: cancel, done: make(chan struct{})}
}

// Go starts Acquire(ctx, n) on s in a new goroutine.
func Go(s sem.Semaphore, n int64) *Call { return Prepare(n).Start(s) }

// Start runs the Acquire on s in a new goroutine and returns c.
func (c *Call) Start(s sem.Semaphore) *Call {
	go func() {
		defer close(c.done)
		c.Err = s.Acquire(c.ctx, c.N)
	}()
	return c
}

// Cancel cancels the Call's context. It may be called any number of times.
func (c *Call) Cancel() { c.cancel() }

// Returned reports whether the Acquire has returned.
func (c *Call) Returned() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// Served reports whether the Acquire has returned nil: the caller holds its
// permits.
func (c *Call) Served() bool { return c.Returned() && c.Err == nil }
