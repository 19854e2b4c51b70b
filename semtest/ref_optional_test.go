package semtest_test

import (
	"errors"

	"github.com/semacat/sem"
)

// The bugs of ref's optional interfaces, each caught by one row of
// Resize, Close, Observe or NewAvailable.
const (
	bugResizeNoWake       = "resizenowake"       // growing wakes nobody
	bugResizeLosesFIFO    = "resizelosesfifo"    // a resize forgets arrival order
	bugShrinkRevokes      = "shrinkrevokes"      // shrinking forgets held permits beyond the new size
	bugShrinkKeepsLarge   = "shrinkkeepslarge"   // a waiter larger than the new size keeps waiting
	bugExceedsOldSize     = "exceedsoldsize"     // a new request is checked against the size it was built with
	bugSizeStale          = "sizestale"          // Size reports the size it was built with
	bugResizeNoCheck      = "resizenocheck"      // Resize accepts a size below 1
	bugShrinkNoPanic      = "shrinknopanic"      // over-release goes unchecked while more is held than the size
	bugCloseNoWake        = "closenowake"        // Close wakes nobody
	bugCloseFreePermits   = "closefreepermits"   // after Close, an Acquire that fits is served
	bugCloseTry           = "closetry"           // after Close, TryAcquire is served
	bugCloseRelease       = "closerelease"       // after Close, Release panics
	bugCloseTwice         = "closetwice"         // a second Close returns an error
	bugCloseLeak          = "closeleak"          // an Acquire failed by Close leaves its context.AfterFunc registered
	bugWaitingPermits     = "waitingpermits"     // Waiting counts one permit per request
	bugOnWaitEveryWake    = "onwaiteverywake"    // OnWait's function is called once per wake-up
	bugOnWaitNilErr       = "onwaitnilerr"       // OnWait events always have Err nil
	bugOnWaitSkipsClosed  = "onwaitskipsclosed"  // an Acquire failed by Close is not reported
	bugOnWaitSkipsExceeds = "onwaitskipsexceeds" // an Acquire failed by a shrink is not reported
	bugOnWaitAlways       = "onwaitalways"       // every Acquire is reported, waiting or not
	bugOnWaitNilIgnored   = "onwaitnilignored"   // OnWait(nil) keeps the function installed
	bugAvailIgnored       = "availignored"       // NewAvailable starts with every permit free
	bugAvailZeroMeansAll  = "availzeromeansall"  // NewAvailable(size, 0) starts with every permit free
	bugAvailDoubleDebt    = "availdoubledebt"    // Release may give back what NewAvailable started without twice
	bugAvailNoCheck       = "availnocheck"       // NewAvailable accepts available outside 0..size
)

// newRefAvailable is ref's NewAvailable.
func newRefAvailable(fifo bool, bug string) func(size, available int64) sem.Semaphore {
	return func(size, available int64) sem.Semaphore {
		r := buildRef(fifo, bug, size)
		if size < 1 {
			r.fail("NewAvailable(%d, %d): size must be at least 1", size, available)
		}
		if (available < 0 || available > size) && bug != bugAvailNoCheck {
			r.fail("NewAvailable(%d, %d): available must be between 0 and the size", size, available)
		}
		if bug == bugAvailIgnored || bug == bugAvailZeroMeansAll && available == 0 {
			available = size
		}
		r.cur = size - available
		if bug == bugAvailDoubleDebt {
			r.debt = r.cur
		}
		return r
	}
}

// Resize sets the size; waiters that now fit are served, and those larger
// than it fail.
func (r *ref) Resize(size int64) {
	if size < 1 && r.bug != bugResizeNoCheck {
		r.fail("Resize(%d): size must be at least 1", size)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bug == bugShrinkRevokes {
		r.cur = min(r.cur, size)
	}
	if r.bug == bugResizeLosesFIFO {
		r.fifo = false
	}
	r.size = size
	if r.bug != bugResizeNoWake {
		r.cond.Broadcast()
	}
}

// Close fails every waiting and later Acquire.
func (r *ref) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed && r.bug == bugCloseTwice {
		return errors.New("ref: Close: already closed")
	}
	r.closed = true
	if r.bug != bugCloseNoWake {
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
	if r.bug == bugWaitingPermits {
		permits = int64(len(r.queue))
	}
	return len(r.queue), permits
}

// OnWait installs f, called when an Acquire that waited returns.
func (r *ref) OnWait(f func(sem.WaitEvent)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f == nil && r.bug == bugOnWaitNilIgnored {
		return
	}
	r.onWait = f
}
