package sem

import (
	"errors"
	"time"
)

// The interfaces in this file are optional: a strategy implements those its
// algorithm can honour, and code that needs one asks for it with a type
// assertion, as io.Copy asks for io.WriterTo:
//
//	if r, ok := s.(sem.Resizer); ok {
//		r.Resize(16)
//	}
//
// semtest checks each one for every strategy that implements it.

// ErrClosed is wrapped by the error Acquire returns once the semaphore has
// been closed (see [Closer]). Test for it with errors.Is.
var ErrClosed = errors.New("sem: semaphore closed")

// Resizer is implemented by semaphores whose size can change while they are
// in use: an adaptive concurrency limit, a limit read from configuration
// that is reloaded.
//
// Resize sets the size to size, which must be at least 1 (Resize panics
// otherwise, naming the package, method and value).
//
// Growing adds size minus the old size free permits and grants waiting
// requests that now fit, in the order the strategy promises (a FIFO strategy
// stays FIFO across a resize).
//
// Shrinking never revokes a held permit: holders keep what they hold, and
// the smaller size takes effect as permits come back, so until then more
// permits may be held than the new size and none is free. A waiting request
// larger than the new size fails at once with an error wrapping
// [ErrExceedsSize], as a new one would; so does every later Acquire larger
// than it.
//
// The over-release rule is unchanged: releasing more than is held panics,
// whatever the size.
//
// A strategy's Available method, where it has one, reports the size minus
// the permits held. After a shrink below the permits held it is therefore
// negative, and it stays so until enough permits are released.
type Resizer interface {
	Resize(size int64)
}

// Closer is implemented by semaphores that can be shut down: at the end of a
// program or a server's life, every Acquire that waits, and every later one,
// should fail instead of each caller canceling its own context.
//
// After Close, every waiting Acquire and every later one returns an error
// wrapping [ErrClosed] (an Acquire called with a done context still returns ctx.Err() first), and
// TryAcquire reports false. Release is still accepted, so that holders can
// finish their work and give back what they hold; the over-release rule still
// applies. Close is idempotent: calling it again does nothing and returns nil.
// A local semaphore's Close always returns nil; a distributed one returns the
// error of the work it does on the server, if any.
type Closer interface {
	Close() error
}

// Observer is implemented by semaphores that can tell who waits, for
// monitoring, adaptive limits and teaching.
//
// Waiting reports, as a snapshot stale as soon as it returns, how many
// Acquire calls are waiting and how many permits they ask for in total,
// math.MaxInt64 if they ask for more.
//
// OnWait installs f to be called once for every Acquire that had to wait,
// when it stops waiting (granted, canceled, or failed), from the goroutine
// that called Acquire and before Acquire returns; f must be safe for
// concurrent use and must not block for long. OnWait(nil) removes it.
// Acquire calls that do not wait never call f, and a semaphore with no
// function installed does no work for it: no clock reading, no allocation.
type Observer interface {
	Waiting() (requests int, permits int64)
	OnWait(f func(WaitEvent))
}

// WaitEvent describes one Acquire that had to wait, for [Observer.OnWait].
type WaitEvent struct {
	// N is the number of permits the Acquire asked for.
	N int64
	// Start is when it began to wait, End when it stopped (monotonic
	// clock readings from time.Now: subtract them for the wait).
	Start, End time.Time
	// Err is nil if the permits were granted, otherwise the error Acquire
	// returns: ctx.Err(), or an error wrapping ErrClosed or ErrExceedsSize.
	Err error
}

// Waited returns how long the Acquire waited.
func (e WaitEvent) Waited() time.Duration { return e.End.Sub(e.Start) }
