package semtest_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/semacat/sem"
	"github.com/semacat/sem/semtest"
)

// ref is a small, obviously correct semaphore that the suite's own tests run
// against, with switches that break it on purpose: each bug must be reported
// by the subtest that names the promise it breaks.
type ref struct {
	mu    sync.Mutex
	cond  *sync.Cond
	size  int64
	cur   int64
	queue []*int64 // waiting requests, in arrival order
	fifo  bool     // serve only the head of the queue, and never let TryAcquire pass it
	bug   string
	never chan struct{}
}

// The bugs ref can be built with.
const (
	bugNone           = ""
	bugOverAdmit      = "overadmit"      // admits one permit more than is free
	bugLostWakeup     = "lostwakeup"     // Release wakes one waiter however many permits it frees
	bugIgnoreCancel   = "ignorecancel"   // a waiting Acquire never looks at its context again
	bugDoneContext    = "donectx"        // a done context still acquires free permits
	bugDoneContextBig = "donectxbig"     // a done context still acquires free permits, if n > 1
	bugGrantAfterDone = "grantafterdone" // a waiter takes permits freed after its context was done
	bugStrand         = "strand"         // a canceled waiter stays at the head of the queue
	bugNoPanic        = "nopanic"        // over-release silently drives the count negative
	bugPanicLate      = "paniclate"      // over-release gives back what is held, then panics
	bugCheckThenAct   = "checkthenact"   // over-release is checked, then permits go back one by one
	bugNoPackageName  = "nopkg"          // panic messages do not name the package
	bugExceedsBlocks  = "exceedsblocks"  // n > size waits instead of failing
	bugLeak           = "leak"           // every Acquire that waits leaves a goroutine behind
	bugLeakAfterFunc  = "leakafterfunc"  // every Acquire leaves its context.AfterFunc registered
	bugAvailable      = "available"      // Available subtracts the weight of waiting requests
	bugRacyTryAcquire = "racytry"        // TryAcquire reads the count without the lock first
	bugRacyRelease    = "racyrelease"    // Release writes the count before it takes the lock
)

func newRef(fifo bool, bug string) semtest.NewFunc {
	return func(size int64) sem.Semaphore {
		r := &ref{size: size, fifo: fifo, bug: bug, never: make(chan struct{})}
		if size < 1 {
			r.fail("New(%d): size must be at least 1", size)
		}
		r.cond = sync.NewCond(&r.mu)
		return r
	}
}

// fail panics with a message that names the package, as the contract asks.
func (r *ref) fail(format string, args ...any) {
	prefix := "ref: "
	if r.bug == bugNoPackageName {
		prefix = ""
	}
	panic(prefix + fmt.Sprintf(format, args...))
}

func (r *ref) Acquire(ctx context.Context, n int64) error {
	if n < 0 {
		r.fail("Acquire(%d): negative weight", n)
	}
	if n > r.size && r.bug != bugExceedsBlocks {
		return fmt.Errorf("ref: Acquire(%d) exceeds size %d: %w", n, r.size, sem.ErrExceedsSize)
	}
	if err := ctx.Err(); (err != nil && !r.acquiresWhenDone(n)) || n == 0 {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	me := &n
	r.queue = append(r.queue, me)
	if r.bug != bugIgnoreCancel {
		stop := context.AfterFunc(ctx, func() {
			r.mu.Lock()
			r.cond.Broadcast()
			r.mu.Unlock()
		})
		if r.bug != bugLeakAfterFunc {
			defer stop()
		}
	}
	if r.bug == bugLeak && !r.fits(me) {
		go func() { <-r.never }()
	}
	for {
		// A cancellation that came before the grant wins.
		done := ctx.Err() != nil && r.bug != bugIgnoreCancel
		if r.fits(me) && (!done || r.bug == bugGrantAfterDone || r.acquiresWhenDone(n)) {
			break
		}
		if done {
			if r.bug != bugStrand {
				r.remove(me)
			}
			r.cond.Broadcast()
			return ctx.Err()
		}
		r.cond.Wait()
	}
	r.remove(me)
	r.cur += n
	if r.bug != bugLostWakeup {
		r.cond.Broadcast() // the next in line may fit too
	}
	return nil
}

func (r *ref) free() int64 {
	if r.bug == bugOverAdmit {
		return r.size - r.cur + 1
	}
	return r.size - r.cur
}

func (r *ref) fits(me *int64) bool {
	return *me <= r.free() && (!r.fifo || r.queue[0] == me)
}

func (r *ref) remove(me *int64) {
	r.queue = slices.DeleteFunc(r.queue, func(q *int64) bool { return q == me })
}

// acquiresWhenDone reports whether a bug lets Acquire(n) with a done
// context take free permits.
func (r *ref) acquiresWhenDone(n int64) bool {
	return r.bug == bugDoneContext || r.bug == bugDoneContextBig && n > 1
}

func (r *ref) TryAcquire(n int64) bool {
	if n < 0 {
		r.fail("TryAcquire(%d): negative weight", n)
	}
	if r.bug == bugRacyTryAcquire && n > r.size-r.cur { // a read without the lock
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n == 0 {
		return true
	}
	if n > r.free() || (r.fifo && len(r.queue) > 0) {
		return false
	}
	r.cur += n
	return true
}

func (r *ref) Release(n int64) {
	if n < 0 {
		r.fail("Release(%d): negative weight", n)
	}
	if r.bug == bugCheckThenAct {
		r.releaseCheckThenAct(n)
		return
	}
	if r.bug == bugRacyRelease {
		r.cur -= n // a write without the lock
		r.mu.Lock()
		r.cond.Broadcast()
		r.mu.Unlock()
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n > r.cur && r.bug == bugPanicLate {
		r.cur = 0
		r.cond.Broadcast()
	}
	if n > r.cur && r.bug != bugNoPanic {
		r.fail("Release(%d): released more than held (%d held)", n, r.cur)
	}
	r.cur -= n
	if r.bug == bugLostWakeup {
		r.cond.Signal()
	} else {
		r.cond.Broadcast()
	}
}

// releaseCheckThenAct checks, lets go of the lock, then gives the permits
// back one at a time: two racing releases can both pass the check, and the
// one that runs out panics after it gave some back.
func (r *ref) releaseCheckThenAct(n int64) {
	r.mu.Lock()
	held := r.cur
	r.mu.Unlock()
	if n > held {
		r.fail("Release(%d): released more than held (%d held)", n, held)
	}
	runtime.Gosched()
	for range n {
		r.mu.Lock()
		if r.cur == 0 {
			r.mu.Unlock()
			r.fail("Release(%d): released more than held", n)
		}
		r.cur--
		r.cond.Broadcast()
		r.mu.Unlock()
	}
}

// Size reports the number of permits.
func (r *ref) Size() int64 { return r.size }

// Available reports the number of permits free right now.
func (r *ref) Available() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	free := r.size - r.cur
	if r.bug == bugAvailable {
		for _, q := range r.queue {
			free -= *q
		}
	}
	return free
}
