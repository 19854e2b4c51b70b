package reftest

import (
	"errors"

	"github.com/semacat/sem"
)

// The bugs of ref's optional interfaces, each caught by one row of
// Resize, Close, Observe or NewAvailable.
const (
	ResizeNoWake       Bug = "resizenowake"       // growing wakes nobody
	ResizeLosesFIFO    Bug = "resizelosesfifo"    // a resize forgets arrival order
	ShrinkRevokes      Bug = "shrinkrevokes"      // shrinking forgets held permits beyond the new size
	ShrinkKeepsLarge   Bug = "shrinkkeepslarge"   // a waiter larger than the new size keeps waiting
	ExceedsOldSize     Bug = "exceedsoldsize"     // a new request is checked against the size it was built with
	SizeStale          Bug = "sizestale"          // Size reports the size it was built with
	AvailableClamped   Bug = "availableclamped"   // Available reports 0, not a negative count, after a shrink below what is held
	ResizeNoCheck      Bug = "resizenocheck"      // Resize accepts a size below 1
	ShrinkNoPanic      Bug = "shrinknopanic"      // over-release goes unchecked while more is held than the size
	CloseNoWake        Bug = "closenowake"        // Close wakes nobody
	CloseFreePermits   Bug = "closefreepermits"   // after Close, an Acquire that fits is served
	CloseTry           Bug = "closetry"           // after Close, TryAcquire is served
	CloseRelease       Bug = "closerelease"       // after Close, Release panics
	CloseTwice         Bug = "closetwice"         // a second Close returns an error
	CloseLeak          Bug = "closeleak"          // an Acquire failed by Close leaves its context.AfterFunc registered
	CloseSkipsNoDone   Bug = "closeskipsnodone"   // Close fails only waiters whose context can be done
	ClosedBeforeDone   Bug = "closedbeforedone"   // after Close, a done context gets ErrClosed, not ctx.Err()
	CloseServesZero    Bug = "closeserveszero"    // after Close, requests for no permits are served
	ResizeReopens      Bug = "resizereopens"      // a Resize reopens a closed semaphore
	ExceedsNamesBuilt  Bug = "exceedsnamesbuilt"  // ErrExceedsSize's message names the size it was built with
	ShrinkStrands      Bug = "shrinkstrands"      // a waiter failed by a shrink stays in the queue
	WaitingPermits     Bug = "waitingpermits"     // Waiting counts one permit per request
	OnWaitEveryWake    Bug = "onwaiteverywake"    // OnWait's function is called once per wake-up
	OnWaitNilErr       Bug = "onwaitnilerr"       // OnWait events always have Err nil
	OnWaitSkipsClosed  Bug = "onwaitskipsclosed"  // an Acquire failed by Close is not reported
	OnWaitSkipsExceeds Bug = "onwaitskipsexceeds" // an Acquire failed by a shrink is not reported
	OnWaitAlways       Bug = "onwaitalways"       // every Acquire is reported, waiting or not
	OnWaitNilIgnored   Bug = "onwaitnilignored"   // OnWait(nil) keeps the function installed
	AvailIgnored       Bug = "availignored"       // NewAvailable starts with every permit free
	AvailZeroMeansAll  Bug = "availzeromeansall"  // NewAvailable(size, 0) starts with every permit free
	AvailDoubleDebt    Bug = "availdoubledebt"    // Release may give back what NewAvailable started without twice
	AvailNoCheck       Bug = "availnocheck"       // NewAvailable accepts available outside 0..size
)

// NewAvailable returns a constructor of the reference semaphore that starts
// with only available of its size permits free, broken by bug.
func NewAvailable(fifo bool, bug Bug) func(size, available int64) sem.Semaphore {
	return func(size, available int64) sem.Semaphore {
		r := build(fifo, bug, size)
		if size < 1 {
			r.fail("NewAvailable(%d, %d): size must be at least 1", size, available)
		}
		if (available < 0 || available > size) && bug != AvailNoCheck {
			r.fail("NewAvailable(%d, %d): available must be between 0 and the size", size, available)
		}
		if bug == AvailIgnored || bug == AvailZeroMeansAll && available == 0 {
			available = size
		}
		r.cur = size - available
		if bug == AvailDoubleDebt {
			r.debt = r.cur
		}
		return r
	}
}

// Resize sets the size; waiters that now fit are served, and those larger
// than it fail.
func (r *ref) Resize(size int64) {
	if size < 1 && r.bug != ResizeNoCheck {
		r.fail("Resize(%d): size must be at least 1", size)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bug == ShrinkRevokes {
		r.cur = min(r.cur, size)
	}
	if r.bug == ResizeLosesFIFO {
		r.fifo = false
	}
	if r.bug == ResizeReopens {
		r.closed = false
	}
	r.size = size
	if r.bug != ResizeNoWake {
		r.cond.Broadcast()
	}
}

// Close fails every waiting and later Acquire.
func (r *ref) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed && r.bug == CloseTwice {
		return errors.New("ref: Close: already closed")
	}
	r.closed = true
	if r.bug != CloseNoWake {
		r.cond.Broadcast()
	}
	return nil
}

// Waiting counts the waiting requests and their permits.
func (r *ref) Waiting() (requests int, permits int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, q := range r.queue {
		permits += *q
	}
	if r.bug == WaitingPermits {
		permits = int64(len(r.queue))
	}
	return len(r.queue), permits
}

// OnWait installs f, called when an Acquire that waited returns.
func (r *ref) OnWait(f func(sem.WaitEvent)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f == nil && r.bug == OnWaitNilIgnored {
		return
	}
	r.onWait = f
}
