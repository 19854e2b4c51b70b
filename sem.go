// Package sem is the contract shared by every semaphore in semacat, a catalog
// of semaphore strategies that are proven against one public conformance suite
// and raced head to head against the ecosystem's references.
//
// A semaphore holds a fixed number of permits (its size). Acquire takes n of
// them, waiting until they are free or the context is done; TryAcquire takes
// them only if it can do so at once; Release gives them back. The method set is
// that of golang.org/x/sync/semaphore.Weighted, which therefore satisfies
// [Semaphore] too and can stand in any comparison.
//
// Every strategy keeps the whole contract below, and the semtest package
// checks each row: never more than size permits held; a done context
// acquires nothing; a cancellation that comes before the grant wins, and a
// grant is final; releasing more than is held panics, changing nothing;
// Acquire never panics except on a negative n; no wake-up, goroutine or
// context registration is ever lost or left behind.
//
// How to pick one, in one minute: if every request takes one permit and you
// want the simplest thing, use chansem. If requests carry different weights
// and must be served in arrival order, use weighted. If the semaphore is hot,
// held briefly and you want mutex-like throughput, use spinsem. Use condsem to
// learn why the others exist. If the right size is not known, or changes
// with a backend's load, wrap a resizable one in an adaptive.Limiter, which
// moves the size from the latencies and failures it sees. The docs/ folder
// and the benchmarks/ harness back these choices with measurements.
//
//	s := weighted.New(4) // at most 4 requests at once
//	if err := s.Acquire(ctx, 1); err != nil {
//		return err // ctx is done: nothing was acquired
//	}
//	defer s.Release(1)
//
// # Strategies
//
// Each strategy lives in its own package:
//
//	package    algorithm                              guarantees beyond the contract
//	chansem    buffered channel, one slot per permit  FIFO for single-permit requests; no starvation;
//	                                                  TryAcquire never barges; also a sync.Locker
//	condsem    sync.Mutex + sync.Cond broadcast       none (the textbook version, and its failure modes);
//	                                                  NewFair adds FIFO, no barging, no starvation
//	weighted   mutex + FIFO wait list, fast paths     strict FIFO for any weights; no starvation; no barging
//	spinsem    atomic word, bounded spin, then park   no starvation (starvation mode, as in sync.Mutex)
//
// Two distributed strategies, for semaphores shared by many processes, live
// in nested modules so that their dependencies never reach users of the
// packages above: etcdsem (github.com/semacat/sem/etcdsem, on etcd leases
// and revisions) and redissem (github.com/semacat/sem/redissem, on Redis
// Lua scripts and server time). Both are weighted, FIFO and crash-safe, and
// hand out fencing tokens.
//
// # Constructors and optional interfaces
//
// Which constructors each strategy's types have, and which of the optional
// interfaces [Resizer], [Closer] and [Observer] they implement. The local
// types also have Size and Available (a snapshot, for monitoring and
// teaching).
//
//	package   type       constructors                  Resizer  Closer  Observer
//	chansem   Semaphore  New, NewAvailable             no       no      yes
//	condsem   Semaphore  New, NewAvailable             yes      yes     yes
//	condsem   Fair       NewFair, NewFairAvailable     yes      yes     yes
//	weighted  Semaphore  New, NewAvailable             yes      yes     yes
//	spinsem   Semaphore  New, NewAvailable             yes      yes     yes
//	etcdsem   Semaphore  New(ctx, client, name, size)  yes      yes     yes
//	redissem  Semaphore  New(ctx, client, name, size)  yes      yes     yes
//	adaptive  Limiter    New(s, initial, alg)          no       no      no
//
// An adaptive.Limiter owns the size of the semaphore it wraps, so it is not a
// Resizer itself, and reports it with Limit instead of Size and Available.
//
// # Putting a semaphore to work
//
// Three packages use any Semaphore, so that the common cases take one call:
//
//	package    what it is
//	group      errgroup's shape: Go(n, f) runs f holding n permits; Wait returns the first error
//	semhttp    net/http middleware: Limit(h, s) refuses with 503 and Retry-After when s is full
//	semexpvar  metrics without a dependency: Publish(name, s) exports Size, Available, Limit,
//	           Waiting and a histogram of the waits from OnWait to expvar
//
// For example:
//
//	g, ctx := group.WithContext(ctx, weighted.New(8))
//	for _, j := range jobs {
//		g.Go(j.Cost, func() error { return j.Run(ctx) })
//	}
//	err := g.Wait()
//
// # The contract
//
// Every strategy, local or distributed, behaves as follows; the semtest
// package checks each row.
//
//   - New(size) with size < 1 panics with a message naming the package and value.
//   - A negative n passed to any method panics with a message naming the
//     package, method and value.
//   - Acquire(ctx, 0), TryAcquire(0) and Release(0) are no-ops: Acquire(ctx, 0)
//     never blocks and returns ctx.Err(); TryAcquire(0) reports true.
//   - Acquire(ctx, n) with n > size returns at once an error for which
//     errors.Is(err, ErrExceedsSize) holds, and changes nothing;
//     TryAcquire(n) with n > size reports false. A strategy that keeps its
//     size in memory gives that answer before it looks at ctx or at Close,
//     so a done context or a closed semaphore does not hide a request that
//     can never be served; one that learns its size from a server (etcdsem,
//     redissem) may return ctx.Err() or ErrClosed first.
//   - If ctx is already done, Acquire returns ctx.Err() and acquires nothing,
//     even when permits are free.
//   - If ctx is done while Acquire waits, Acquire returns ctx.Err() and the
//     semaphore is exactly as if the call had never happened: a canceled
//     waiter never strands permits or the waiters queued behind it.
//   - A cancellation that happens before the permits are granted wins: when
//     ctx is done before a Release makes the permits free (go.dev/issue/63615:
//     size 2, 1 held, Acquire(ctx, 2) waiting, cancel(), then Release(1)),
//     Acquire returns ctx.Err() and the permits go to the next waiter or stay
//     free. A grant is final: a waiter granted its permits before ctx was
//     done returns nil holding them, even if ctx is done by the time it
//     returns. It never gives them back on its way out, since another
//     goroutine may already have released them.
//   - Acquire returns nil only when the caller holds the n permits, and an
//     error only when it holds none of them: never both, never neither.
//   - Acquire never panics, except on a negative n.
//   - Releasing more than is held panics with a message naming the package
//     and containing "released more than held", before any state is changed,
//     also while other callers wait or release at the same time. Permits a
//     waiting Acquire has gathered but not yet been granted count as held by
//     nobody: releasing them panics too.
//   - A Release happens before the Acquire or TryAcquire that its permits
//     enable, in the sense of the Go memory model.
//   - Never are more than size permits held at once, never is a wake-up lost,
//     never is a goroutine or a context registration (context.AfterFunc) left
//     behind once all calls have returned, even when their contexts are never
//     canceled.
//
// # Beyond the contract
//
// Some strategies offer more, through optional interfaces that code asks for
// with a type assertion, each with exact semantics in its documentation and
// its own semtest checks: [Resizer] (change the size while in use), [Closer]
// (fail every waiting and later Acquire with [ErrClosed]) and [Observer] (how
// many wait, for how many permits, and a function called when a wait ends).
//
// Strategies that can start with fewer free permits than their size offer a
// constructor NewAvailable(size, available int64), with 0 <= available <=
// size: the semaphore starts as if size-available permits were held, so
// Release may give back up to that many more than were acquired, and no more
// (the over-release rule counts against the size). NewAvailable(1, 0) is
// Dijkstra's signalling semaphore: Acquire waits until another goroutine
// calls Release(1).
package sem

import (
	"context"
	"errors"
)

// Semaphore is a counting semaphore with weighted requests. It is the method
// set of golang.org/x/sync/semaphore.Weighted.
type Semaphore interface {
	// Acquire takes n permits, blocking until they are available or ctx is
	// done. On success it returns nil and the caller holds n permits. On
	// failure it returns ctx.Err() (or an error wrapping ErrExceedsSize when
	// n exceeds the size) and the caller holds none. A cancellation that
	// happens before the permits are granted wins: Acquire then returns
	// ctx.Err() even if a Release frees the permits a moment later. A grant
	// is final: a waiter granted the permits before ctx was done returns
	// nil. Acquire never panics, except on a negative n.
	Acquire(ctx context.Context, n int64) error

	// TryAcquire takes n permits only if it can do so without blocking, and
	// reports whether it did. It takes all n or none.
	TryAcquire(n int64) bool

	// Release returns n permits. It panics, changing nothing, if that is
	// more than are held.
	Release(n int64)
}

// ErrExceedsSize is wrapped by the error Acquire returns when a request asks
// for more permits than the semaphore has in total, so that no amount of
// waiting could ever satisfy it. Test for it with errors.Is.
var ErrExceedsSize = errors.New("sem: request exceeds semaphore size")
