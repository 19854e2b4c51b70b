// Package semtest tells you whether your semaphore keeps the contract of
// package sem: one call from a test runs every promise of the contract, and
// every guarantee you claim beyond it, against your implementation, and
// names each one it breaks. Whatever the implementation does (panics, hangs,
// leaks goroutines), the run completes and every check reports.
//
//	package mysem_test
//
//	import (
//		"testing"
//
//		"github.com/semacat/sem"
//		"github.com/semacat/sem/semtest"
//
//		"example.com/mysem"
//	)
//
//	func TestConformance(t *testing.T) {
//		semtest.Run(t, func(size int64) sem.Semaphore { return mysem.New(size) },
//			semtest.Guarantees{NoStarvation: true})
//	}
//
// Every check has its own subtest name, so `go test -run
// 'Conformance/Cancel'` reruns just one family, and a failure names exactly
// the promise that was broken. Checks of guarantees that were not claimed
// are skipped, not failed. The suite is in the spirit of
// testing/fstest.TestFS and golang.org/x/net/nettest.TestConn.
//
// # Checks
//
// Each family is a subtest of Run, each check a subtest of its family:
//
//	BadInput       programmer errors panic, naming the package, and change nothing
//	  New                            New(0), New(-1), New(MinInt64) panic, naming the value
//	  NegativeWeight/{Acquire,TryAcquire,Release}   naming the method and value
//	  OverRelease/Fresh              Release(1) on a fresh semaphore
//	  OverRelease/BeyondHeld         Release(3) holding 2
//	  OverRelease/WaiterQueued       Release(4) holding 3, an Acquire(1) queued
//	  OverRelease/WaiterPartlyServed Release(3) holding 2, an Acquire(3) waiting:
//	                                 the waiter is not served early, and nothing
//	                                 is admitted beyond size afterwards
//	  OverRelease/Concurrent         two racing Release(2) holding 3: exactly one
//	                                 panics, and 1 permit is still held
//	ExceedsSize    a request larger than the size fails at once
//	  Acquire, TryAcquire
//	ZeroWeight     n == 0 is a no-op that never blocks
//	  AcquireWhenFull, AcquireDoneContext, TryAcquire, Release
//	Acquire        the plain path
//	  HoldsPermits, TryAcquireAllOrNothing, BlocksWhenFull
//	Cancel         a done context wins and leaves no trace
//	  AlreadyDone        canceled and expired contexts, n = 1, 2 and size
//	  WhileWaiting       a waiter canceled while it waits
//	  Timeout            a waiter whose deadline passes
//	  BeforeGrant        cancel(), then the Release that frees the permits:
//	                     the cancellation wins
//	  BeforeGrantPassesOn  the same with an Acquire(1) behind: the canceled
//	                     waiter's permits go to it
//	  GrantedThenReleased  Release(1) grants a waiter; then cancel(), and another
//	                     goroutine releases the granted permit: Acquire returns
//	                     nil (ctx.Err() only if nothing was granted), never panics
//	  HeadDoesNotStrand  a canceled head waiter lets those behind it through
//	  ManyWaiters        half of many waiters canceled, the rest all served
//	Liveness       no lost wake-up
//	  EachReleaseWakesOne, ReleaseWakesAllThatFit
//	Guarantees     only those claimed in Guarantees; the others are skipped
//	  FIFO, UnitFIFO, NoStarvation
//	  NoBarging/Parked        TryAcquire may not pass a parked waiter
//	  NoBarging/PartlyServed  nor one between two of its grants
//	Leaks          Acquire calls on a never-canceled context leave nothing behind
//	  AfterFunc    no callback stays registered on the context
//	  Goroutines   no goroutine is left (skipped in real time)
//	Snapshot       Size and Available, when the semaphore has them (else skipped)
//	  SizeAvailable
//	MemoryModel    a Release happens before the Acquire it enables (only under -race)
//	  ReleaseBeforeAcquire, ReleaseBeforeTryAcquire
//	Stress         real parallelism, bounded in count and time
//	  Hammer, RandomTimeouts, Goroutines
//
// The optional interfaces of package sem have a family each. A family's
// checks run only when the semaphore the constructor returns implements the
// interface (for NewAvailable: when [WithNewAvailable] gives the
// constructor), and are skipped otherwise:
//
//	Resize         sem.Resizer
//	  Grow                    growing a full semaphore serves the waiters that now fit
//	  GrowFIFO                in arrival order, across several resizes (if FIFO is claimed)
//	  ShrinkKeepsHeld         shrinking below what is held revokes nothing; no grant
//	                          and no TryAcquire until fewer than the new size are held
//	  ShrinkFailsLargeWaiter  a waiter larger than the new size fails at once with
//	                          ErrExceedsSize; the one behind it that fits is served
//	  ShrinkFailedWaiter      its error names the new size, and it leaves Waiting
//	                          (if sem.Observer is implemented)
//	  ShrinkLaterExceeds      later Acquire and TryAcquire larger than the new size fail
//	  Size                    Size and Available report the new size (if offered)
//	  AvailableAfterShrink    Available is the size minus the permits held: negative
//	                          after a shrink below what is held (if offered)
//	  BadSize                 Resize(0), Resize(-1), Resize(MinInt64) panic, naming the value
//	  OverRelease             after a shrink, the held permits come back, and no more
//	  KeepsClosed             growing or shrinking a closed semaphore leaves it closed
//	                          (if sem.Closer is implemented)
//	Close          sem.Closer
//	  FailsWaiters  every waiting Acquire returns ErrClosed, holding nothing
//	  FailsWaiterWithoutDone  so does one on context.Background, which then
//	                leaves Waiting (if sem.Observer is implemented)
//	  LaterAcquire  a later Acquire returns ErrClosed with every permit free;
//	                with a done context, ctx.Err(), which comes first
//	  TryAcquire    fails after Close with every permit free
//	  ZeroWeight    TryAcquire(0) and Acquire(ctx, 0) fail after Close too
//	  Release       held permits come back after Close, and no more
//	  Idempotent    a second Close returns nil; a local semaphore's first one too
//	  Leaks         waiters failed by Close leave no AfterFunc and no goroutine
//	Observe        sem.Observer
//	  Waiting          requests and permits waiting, exactly, when nothing moves
//	  OnWaitGranted    once per Acquire that waited, before it returns, with N,
//	                   the time it waited, and Err nil, however often it woke up
//	  OnWaitCanceled   Err is context.Canceled or context.DeadlineExceeded
//	  OnWaitClosed     Err wraps ErrClosed (if sem.Closer is implemented)
//	  OnWaitExceeds    Err wraps ErrExceedsSize after a shrink (if sem.Resizer is)
//	  OnWaitNotWaited  never for an Acquire or TryAcquire that did not wait
//	  OnWaitNil        OnWait(nil) stops the calls
//	NewAvailable   the constructor given with WithNewAvailable
//	  StartsWithAvailable  exactly available permits are free, the rest can be released
//	  Signal               NewAvailable(1, 0): Acquire waits for a Release(1)
//	  OverRelease          Release beyond what it started without plus what was
//	                       acquired panics
//	  BadInput             available < 0 or > size, size < 1 panic, naming the value
//
// Last, one family compares the implementation with a model of the contract:
//
//	Model          seeded random programs, checked step by step (synctest mode only)
//
// # The Model family
//
// Model draws random programs, each a semaphore of size 1 to 4 and a dozen
// steps: Acquire calls of random weights with contexts that are never done,
// cancelable, timing out, or done before the call; TryAcquire; Release of
// part of what a holder holds; over-release; cancellations; simulated time;
// and steps that run a Release and a cancellation, or a burst of Releases
// and a TryAcquire, back to back with no settling between them, or that
// release a waiter's permits from another goroutine between its grant and
// its return. After every
// step it waits until every goroutine is blocked and compares what returned,
// and with what, to a model that knows which outcomes the contract and the
// claimed FIFO, UnitFIFO and NoBarging guarantees allow. The model checks
// orderings the fixed rows above do not stage; it does not exercise the
// optional interfaces.
//
// It runs 2000 programs from seed 1 by default, few enough for every go test
// run. [WithPrograms] changes the count, and two environment variables
// change the run without a change to the test:
//
//	SEMTEST_PROGRAMS=20000 SEMTEST_SEED=7 go test -run 'Conformance/Model' .
//
// A failing program is shrunk to a short one that fails the same way, and
// the report prints it with the command that replays it alone (through the
// environment variable SEMTEST_REPLAY) and the [ReplayProgram] call that
// keeps it as a regression test. Model needs testing/synctest, so it is
// skipped under [WithSettle].
//
// # How the checks run
//
// Checks about blocking, ordering and time run inside testing/synctest
// bubbles: they know when every goroutine has blocked, take no real time,
// and a goroutine left blocked when a check ends is reported. The semaphore
// is constructed inside each bubble, so its channels, timers and condition
// variables belong to it. Every such check ends by canceling its waiters and
// verifying that all permits are free again (unless it closed the
// semaphore). Where a bug shows only in some interleavings
// (Cancel/BeforeGrant, Cancel/GrantedThenReleased,
// Guarantees/NoBarging/PartlyServed), the check runs several trials and logs
// which orders it saw.
//
// A broken implementation fails the checks that find it and never ends the
// run early: a panic inside one of its methods fails the check that called
// it; a waiter that never returns is canceled, then the permits are
// released until it does, and if it still does not, it is reported and
// abandoned, blocked for good, as are goroutines the implementation leaves
// behind in a bubble; a stress check stuck with no call returning gives up
// after a few seconds.
//
// An implementation whose waiting happens outside the process (on the
// network, as with a distributed semaphore) cannot be observed by synctest;
// it passes [WithSettle] and the suite runs in real time instead. Stress,
// OverRelease/Concurrent and MemoryModel always run in real time, with real
// parallelism, bounded in count and time (synctest.Wait would itself be a
// happens-before edge that hides a missing one).
//
// Panic messages must contain the package name: by default the last element
// of the import path of the type the constructor returns, or the name given
// with [WithPackageName].
package semtest
