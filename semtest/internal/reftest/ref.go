// Package reftest holds the semaphores that semtest's own tests and the
// model's tests run: a small, obviously correct one with switches that break
// it on purpose, a handoff semaphore in the style of x/sync's Weighted with
// the ways it can treat a waiter canceled around its grant, and chansem's
// old gathering design with its two review findings. Both test packages check them, so that the suite and the model
// are held to the same subjects.
package reftest

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/semacat/sem"
)

// ref is a small, obviously correct semaphore (a mutex, a condition
// variable and a queue of waiting requests) with switches that break it on
// purpose: each bug must be found by the check that names the promise it
// breaks.
type ref struct {
	mu     sync.Mutex
	cond   *sync.Cond
	size   int64
	built  int64 // the size it was built with
	cur    int64
	debt   int64    // AvailDoubleDebt: what NewAvailable started without, counted twice
	queue  []*int64 // waiting requests, in arrival order
	fifo   bool     // serve only the head of the queue, and never let TryAcquire pass it
	closed bool
	onWait func(sem.WaitEvent)
	bug    Bug
	never  chan struct{}
}

// Bug names one way of breaking the reference semaphore on purpose.
type Bug string

// The bugs of the contract's methods; optional.go has those of the optional
// interfaces.
const (
	None                  Bug = ""
	OverAdmit             Bug = "overadmit"          // admits one permit more than is free
	LostWakeup            Bug = "lostwakeup"         // Release wakes one waiter however many permits it frees
	NoWakeup              Bug = "nowakeup"           // Release wakes no waiter; only a cancellation does
	AcquirePanics         Bug = "acquirepanics"      // Acquire(ctx, 2) panics
	IgnoreCancel          Bug = "ignorecancel"       // a waiting Acquire never looks at its context again
	DoneContext           Bug = "donectx"            // a done context still acquires free permits
	DoneContextBig        Bug = "donectxbig"         // a done context still acquires free permits, if n > 1
	GrantAfterDone        Bug = "grantafterdone"     // a waiter takes permits freed after its context was done
	UnitGrantAfterDone    Bug = "unitgrantafterdone" // a single-permit waiter does, as a select between the permit and ctx.Done() may
	Strand                Bug = "strand"             // a canceled waiter stays at the head of the queue
	CancelTakesPermit     Bug = "canceltakespermit"  // a canceled waiter takes one permit away with it
	NoPanic               Bug = "nopanic"            // over-release silently drives the count negative
	PanicLate             Bug = "paniclate"          // over-release gives back what is held, then panics
	CheckThenAct          Bug = "checkthenact"       // over-release is checked, then permits go back one by one
	NoPackageName         Bug = "nopkg"              // panic messages do not name the package
	ExceedsBlocks         Bug = "exceedsblocks"      // n > size waits instead of failing
	Leak                  Bug = "leak"               // every Acquire that waits leaves a goroutine behind
	LeakAfterFunc         Bug = "leakafterfunc"      // every Acquire leaves its context.AfterFunc registered
	AvailableMinusWaiting Bug = "available"          // Available subtracts the weight of waiting requests
	Barging               Bug = "barging"            // a FIFO semaphore's TryAcquire takes free permits past the queue
	ShyTry                Bug = "shytry"             // TryAcquire never takes the last free permit
	RacyTryAcquire        Bug = "racytry"            // TryAcquire reads the count without the lock first
	RacyRelease           Bug = "racyrelease"        // Release writes the count before it takes the lock
)

// New returns a constructor of the reference semaphore, broken by bug. A
// FIFO one serves waiters strictly in arrival order and never lets
// TryAcquire pass a waiter. Its panics name the package "ref".
func New(fifo bool, bug Bug) func(size int64) sem.Semaphore {
	return func(size int64) sem.Semaphore {
		r := build(fifo, bug, size)
		if size < 1 {
			r.fail("New(%d): size must be at least 1", size)
		}
		return r
	}
}

func build(fifo bool, bug Bug, size int64) *ref {
	r := &ref{size: size, built: size, fifo: fifo, bug: bug, never: make(chan struct{})}
	r.cond = sync.NewCond(&r.mu)
	return r
}

// fail panics with a message that names the package, as the contract asks.
func (r *ref) fail(format string, args ...any) {
	prefix := "ref: "
	if r.bug == NoPackageName {
		prefix = ""
	}
	panic(prefix + fmt.Sprintf(format, args...))
}

func (r *ref) Acquire(ctx context.Context, n int64) error {
	if n < 0 || n == 2 && r.bug == AcquirePanics {
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
	if r.bug == OnWaitAlways {
		w.begin(r)
	}
	if n > r.exceedsLimit() && r.bug != ExceedsBlocks {
		return r.errExceeds(n)
	}
	if r.closed && r.bug == ClosedBeforeDone {
		return r.errClosed(n)
	}
	if err := ctx.Err(); err != nil && !r.acquiresWhenDone(n) {
		return err
	}
	if n == 0 && (!r.closed || r.bug == CloseServesZero) {
		return nil
	}
	if r.closed && r.bug != CloseFreePermits {
		return r.errClosed(n)
	}
	me := &n
	r.queue = append(r.queue, me)
	if r.bug != IgnoreCancel {
		stop := context.AfterFunc(ctx, func() {
			r.mu.Lock()
			r.cond.Broadcast()
			r.mu.Unlock()
		})
		if r.bug != LeakAfterFunc {
			defer func() {
				if !r.closed || r.bug != CloseLeak {
					stop()
				}
			}()
		}
	}
	if r.bug == Leak && !r.fits(me) {
		go func() { <-r.never }()
	}
	for {
		// A cancellation that came before the grant wins.
		done := ctx.Err() != nil && r.bug != IgnoreCancel
		closed := r.closed && (ctx.Done() != nil || r.bug != CloseSkipsNoDone)
		if r.fits(me) && (!done || r.grantsAfterDone(n) || r.acquiresWhenDone(n)) && (!closed || r.bug == CloseFreePermits) {
			break
		}
		if done || closed || n > r.size && r.waitersMayExceed() {
			return r.giveUp(ctx, me, w)
		}
		w.begin(r)
		r.cond.Wait()
		w.wakes++
	}
	r.remove(me)
	r.cur += n
	if r.bug != LostWakeup {
		r.cond.Broadcast() // the next in line may fit too
	}
	return nil
}

// giveUp takes a waiting request that will not be served out of the queue,
// and says why.
func (r *ref) giveUp(ctx context.Context, me *int64, w *wait) error {
	if r.bug != Strand {
		r.remove(me)
	}
	r.cond.Broadcast()
	switch {
	case ctx.Err() != nil:
		if r.bug == CancelTakesPermit {
			r.cur++
		}
		return ctx.Err()
	case r.closed:
		if r.bug == OnWaitSkipsClosed {
			w.waited = false
		}
		return r.errClosed(*me)
	default:
		if r.bug == OnWaitSkipsExceeds {
			w.waited = false
		}
		if r.bug == ShrinkStrands {
			r.queue = append(r.queue, me)
		}
		return r.errExceeds(*me)
	}
}

func (r *ref) errExceeds(n int64) error {
	size := r.size
	if r.bug == ExceedsNamesBuilt {
		size = r.built
	}
	return fmt.Errorf("ref: Acquire(%d) exceeds size %d: %w", n, size, sem.ErrExceedsSize)
}

func (r *ref) errClosed(n int64) error {
	return fmt.Errorf("ref: Acquire(%d): %w", n, sem.ErrClosed)
}

// exceedsLimit is the size a new request may not exceed.
func (r *ref) exceedsLimit() int64 {
	if r.bug == ExceedsOldSize {
		return r.built
	}
	return r.size
}

// waitersMayExceed reports whether a waiting request checks the size again
// (a shrink may have made it too large); only bugs that skip a size check
// leave one waiting.
func (r *ref) waitersMayExceed() bool {
	return r.bug != ShrinkKeepsLarge && r.bug != ExceedsBlocks && r.bug != ExceedsOldSize
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
	if r.bug == OnWaitNilErr {
		err = nil
	}
	calls := 1
	if r.bug == OnWaitEveryWake {
		calls = max(1, w.wakes)
	}
	for range calls {
		w.f(sem.WaitEvent{N: n, Start: w.start, End: time.Now(), Err: err})
	}
}

func (r *ref) free() int64 {
	if r.bug == OverAdmit {
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
	return r.bug == GrantAfterDone || r.bug == UnitGrantAfterDone && n == 1
}

// acquiresWhenDone reports whether a bug lets Acquire(n) with a done
// context take free permits.
func (r *ref) acquiresWhenDone(n int64) bool {
	return r.bug == DoneContext || r.bug == DoneContextBig && n > 1
}

func (r *ref) TryAcquire(n int64) bool {
	if n < 0 {
		r.fail("TryAcquire(%d): negative weight", n)
	}
	if r.bug == RacyTryAcquire && n > r.size-r.cur { // a read without the lock
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n == 0 {
		return !r.closed || r.bug == CloseServesZero
	}
	if r.tryRefuses(n) {
		return false
	}
	r.cur += n
	return true
}

// tryRefuses reports, with r.mu held, whether TryAcquire(n) must fail.
func (r *ref) tryRefuses(n int64) bool {
	switch {
	case n > r.free():
		return true
	case r.fifo && len(r.queue) > 0 && r.bug != Barging:
		return true // it may not pass a waiter
	case r.closed && r.bug != CloseTry:
		return true
	}
	return r.bug == ShyTry && n == r.free()
}

func (r *ref) Release(n int64) {
	if n < 0 {
		r.fail("Release(%d): negative weight", n)
	}
	if r.bug == CheckThenAct {
		r.releaseCheckThenAct(n)
		return
	}
	if r.bug == RacyRelease {
		r.cur -= n // a write without the lock
		r.mu.Lock()
		r.cond.Broadcast()
		r.mu.Unlock()
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n > r.cur && r.bug == PanicLate {
		r.cur = 0
		r.cond.Broadcast()
	}
	if r.closed && r.bug == CloseRelease {
		r.fail("Release(%d): semaphore closed", n)
	}
	if r.overReleased(n) {
		r.fail("Release(%d): released more than held (%d held)", n, r.cur)
	}
	r.cur -= n
	switch r.bug {
	case LostWakeup:
		r.cond.Signal()
	case NoWakeup:
	default:
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
	case NoPanic:
		return false
	case ShrinkNoPanic:
		return n > r.cur && r.cur <= r.size
	case AvailDoubleDebt:
		return n > r.cur+r.debt
	}
	return n > r.cur
}

// Size reports the number of permits.
func (r *ref) Size() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bug == SizeStale {
		return r.built
	}
	return r.size
}

// Available reports the number of permits free right now.
func (r *ref) Available() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	free := r.size - r.cur
	if r.bug == AvailableClamped {
		free = max(free, 0)
	}
	if r.bug == AvailableMinusWaiting {
		for _, q := range r.queue {
			free -= *q
		}
	}
	return free
}
