package semtest_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/semtest"
)

// ref is a small, obviously correct semaphore that the suite's own tests run
// against, with switches that break it on purpose: each bug must be reported
// by the subtest that names the promise it breaks.
type ref struct {
	mu     sync.Mutex
	cond   *sync.Cond
	size   int64
	built  int64 // the size it was built with
	cur    int64
	debt   int64    // bugAvailDoubleDebt: what NewAvailable started without, counted twice
	queue  []*int64 // waiting requests, in arrival order
	fifo   bool     // serve only the head of the queue, and never let TryAcquire pass it
	closed bool
	onWait func(sem.WaitEvent)
	bug    string
	never  chan struct{}
}

// The bugs ref can be built with.
const (
	bugNone               = ""
	bugOverAdmit          = "overadmit"          // admits one permit more than is free
	bugLostWakeup         = "lostwakeup"         // Release wakes one waiter however many permits it frees
	bugIgnoreCancel       = "ignorecancel"       // a waiting Acquire never looks at its context again
	bugDoneContext        = "donectx"            // a done context still acquires free permits
	bugDoneContextBig     = "donectxbig"         // a done context still acquires free permits, if n > 1
	bugGrantAfterDone     = "grantafterdone"     // a waiter takes permits freed after its context was done
	bugUnitGrantAfterDone = "unitgrantafterdone" // a single-permit waiter does, as a select between the permit and ctx.Done() may
	bugStrand             = "strand"             // a canceled waiter stays at the head of the queue
	bugNoPanic            = "nopanic"            // over-release silently drives the count negative
	bugPanicLate          = "paniclate"          // over-release gives back what is held, then panics
	bugCheckThenAct       = "checkthenact"       // over-release is checked, then permits go back one by one
	bugNoPackageName      = "nopkg"              // panic messages do not name the package
	bugExceedsBlocks      = "exceedsblocks"      // n > size waits instead of failing
	bugLeak               = "leak"               // every Acquire that waits leaves a goroutine behind
	bugLeakAfterFunc      = "leakafterfunc"      // every Acquire leaves its context.AfterFunc registered
	bugAvailable          = "available"          // Available subtracts the weight of waiting requests
	bugRacyTryAcquire     = "racytry"            // TryAcquire reads the count without the lock first
	bugRacyRelease        = "racyrelease"        // Release writes the count before it takes the lock
)

func newRef(fifo bool, bug string) semtest.NewFunc {
	return func(size int64) sem.Semaphore {
		r := buildRef(fifo, bug, size)
		if size < 1 {
			r.fail("New(%d): size must be at least 1", size)
		}
		return r
	}
}

func buildRef(fifo bool, bug string, size int64) *ref {
	r := &ref{size: size, built: size, fifo: fifo, bug: bug, never: make(chan struct{})}
	r.cond = sync.NewCond(&r.mu)
	return r
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
	var w wait
	r.mu.Lock()
	err := r.acquire(ctx, n, &w)
	r.mu.Unlock()
	w.report(r, n, err)
	return err
}

// acquire is Acquire with r.mu held; it records in w whether it waited.
func (r *ref) acquire(ctx context.Context, n int64, w *wait) error {
	if r.bug == bugOnWaitAlways {
		w.begin(r)
	}
	if n > r.exceedsLimit() && r.bug != bugExceedsBlocks {
		return r.errExceeds(n)
	}
	if err := ctx.Err(); (err != nil && !r.acquiresWhenDone(n)) || n == 0 {
		return err
	}
	if r.closed && r.bug != bugCloseFreePermits {
		return r.errClosed(n)
	}
	me := &n
	r.queue = append(r.queue, me)
	if r.bug != bugIgnoreCancel {
		stop := context.AfterFunc(ctx, func() {
			r.mu.Lock()
			r.cond.Broadcast()
			r.mu.Unlock()
		})
		if r.bug != bugLeakAfterFunc {
			defer func() {
				if !r.closed || r.bug != bugCloseLeak {
					stop()
				}
			}()
		}
	}
	if r.bug == bugLeak && !r.fits(me) {
		go func() { <-r.never }()
	}
	for {
		// A cancellation that came before the grant wins.
		done := ctx.Err() != nil && r.bug != bugIgnoreCancel
		if r.fits(me) && (!done || r.grantsAfterDone(n) || r.acquiresWhenDone(n)) && (!r.closed || r.bug == bugCloseFreePermits) {
			break
		}
		if done || r.closed || n > r.size && r.waitersMayExceed() {
			return r.giveUp(ctx, me, w)
		}
		w.begin(r)
		r.cond.Wait()
		w.wakes++
	}
	r.remove(me)
	r.cur += n
	if r.bug != bugLostWakeup {
		r.cond.Broadcast() // the next in line may fit too
	}
	return nil
}

// giveUp takes a waiting request that will not be served out of the queue,
// and says why.
func (r *ref) giveUp(ctx context.Context, me *int64, w *wait) error {
	if r.bug != bugStrand {
		r.remove(me)
	}
	r.cond.Broadcast()
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case r.closed:
		if r.bug == bugOnWaitSkipsClosed {
			w.waited = false
		}
		return r.errClosed(*me)
	default:
		if r.bug == bugOnWaitSkipsExceeds {
			w.waited = false
		}
		return r.errExceeds(*me)
	}
}

func (r *ref) errExceeds(n int64) error {
	return fmt.Errorf("ref: Acquire(%d) exceeds size %d: %w", n, r.size, sem.ErrExceedsSize)
}

func (r *ref) errClosed(n int64) error {
	return fmt.Errorf("ref: Acquire(%d): %w", n, sem.ErrClosed)
}

// exceedsLimit is the size a new request may not exceed.
func (r *ref) exceedsLimit() int64 {
	if r.bug == bugExceedsOldSize {
		return r.built
	}
	return r.size
}

// waitersMayExceed reports whether a waiting request checks the size again
// (a shrink may have made it too large); only bugs that skip a size check
// leave one waiting.
func (r *ref) waitersMayExceed() bool {
	return r.bug != bugShrinkKeepsLarge && r.bug != bugExceedsBlocks && r.bug != bugExceedsOldSize
}

// wait is what an Acquire knows of its own wait, for OnWait.
type wait struct {
	waited bool
	f      func(sem.WaitEvent) // the function installed when the wait began
	start  time.Time
	wakes  int
}

// begin records, with r.mu held, that the Acquire waits, once.
func (w *wait) begin(r *ref) {
	if w.waited {
		return
	}
	w.waited, w.f = true, r.onWait
	if w.f != nil {
		w.start = time.Now()
	}
}

// report calls the function OnWait installed, without r.mu held.
func (w *wait) report(r *ref, n int64, err error) {
	if !w.waited || w.f == nil {
		return
	}
	if r.bug == bugOnWaitNilErr {
		err = nil
	}
	calls := 1
	if r.bug == bugOnWaitEveryWake {
		calls = max(1, w.wakes)
	}
	for range calls {
		w.f(sem.WaitEvent{N: n, Start: w.start, End: time.Now(), Err: err})
	}
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

// grantsAfterDone reports whether a bug lets a waiting Acquire(n) whose
// context is done take permits freed since.
func (r *ref) grantsAfterDone(n int64) bool {
	return r.bug == bugGrantAfterDone || r.bug == bugUnitGrantAfterDone && n == 1
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
	if n > r.free() || (r.fifo && len(r.queue) > 0) || (r.closed && r.bug != bugCloseTry) {
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
	if r.closed && r.bug == bugCloseRelease {
		r.fail("Release(%d): semaphore closed", n)
	}
	if r.overReleased(n) {
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

// overReleased reports whether Release(n) gives back more than is held.
func (r *ref) overReleased(n int64) bool {
	switch r.bug {
	case bugNoPanic:
		return false
	case bugShrinkNoPanic:
		return n > r.cur && r.cur <= r.size
	case bugAvailDoubleDebt:
		return n > r.cur+r.debt
	}
	return n > r.cur
}

// Size reports the number of permits.
func (r *ref) Size() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bug == bugSizeStale {
		return r.built
	}
	return r.size
}

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
