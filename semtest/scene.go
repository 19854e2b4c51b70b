package semtest

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/semacat/sem"
)

// scene is one check that watches goroutines block: the semaphore under
// test, the waiters the check started, and the way to wait for them to block.
type scene struct {
	t       *testing.T
	c       *config
	settle  func()
	s       sem.Semaphore
	size    int64
	closed  bool // Close was called: no permit is free any more
	waiters []*waiter
}

// bubble runs f where blocking can be observed: in a synctest bubble, or in
// real time when the implementation needs it. f gives back the permits it
// took itself; the scene then finishes every waiter f started (cancels it,
// waits for it, gives back what it was granted) and, unless the check has
// already failed, verifies that all permits are free again. So a broken
// implementation is reported by the failing check's name instead of
// deadlocking the bubble, and every check ends with a consistency test.
func (c *config) bubble(t *testing.T, f func(t *testing.T, sc *scene)) {
	play := func(t *testing.T, settle func()) {
		sc := &scene{t: t, c: c, settle: settle}
		if c.realTime() {
			// The implementation's settle sees only the calls that have
			// begun: a goroutine not yet scheduled (one core, a loaded
			// machine) would look settled.
			sc.settle = func() { sc.awaitStarts(); settle() }
		}
		defer sc.close()
		defer recovered(func(msg string) {
			t.Errorf("a call on the semaphore panicked: %s\n%s", msg, debug.Stack())
		})
		f(t, sc)
	}
	if c.realTime() {
		play(t, c.settle)
		return
	}
	defer reportDeadlock(t)
	synctest.Test(t, func(t *testing.T) { play(t, synctest.Wait) })
}

// reportDeadlock turns synctest's deadlock panic into a failure of t, so
// that one check of a broken implementation cannot end the test binary and
// hide the checks after it. synctest raises it outside the bubble when every
// goroutine of the bubble blocks (a call that never returns, even after the
// scene canceled every waiter and released every permit), or when the
// check's goroutine returns while goroutines of the bubble stay blocked
// (the implementation left them behind). Those goroutines are abandoned,
// blocked for good; any other panic goes on.
func reportDeadlock(t *testing.T) {
	p := recover()
	if p == nil {
		return
	}
	msg := fmt.Sprint(p)
	switch {
	case !strings.Contains(msg, "deadlock"):
		panic(p)
	case strings.Contains(msg, "all goroutines in bubble are blocked"):
		t.Errorf("a call on the semaphore never returned, and nothing unblocked it (canceling every waiter's context, releasing every permit); the check was abandoned: %s", msg)
	default:
		t.Errorf("goroutines were left blocked inside the semaphore when the check ended, after it canceled every waiter's context it could and released every permit; they were abandoned: %s", msg)
	}
}

// bubbleTrials runs f in a fresh bubble trials times (at most 4 in
// real-time mode), stopping at the first failure: for checks of a bug that
// shows only in some interleavings. f races a waiter against the check and
// reports whether the waiter had already returned at the moment that decides
// the race, named by at; bubbleTrials logs how often it had, so that a run
// shows which orders its trials reached.
func (c *config) bubbleTrials(t *testing.T, trials int, at string, f func(t *testing.T, sc *scene, trial int) (returnedFirst bool)) {
	t.Helper()
	if c.realTime() {
		trials = min(trials, 4)
	}
	var ran, returnedFirst int
	for trial := 0; trial < trials && !t.Failed(); trial++ {
		c.bubble(t, func(t *testing.T, sc *scene) {
			ran++
			if f(t, sc, trial) {
				returnedFirst++
			}
		})
	}
	t.Logf("the waiter had already returned %s in %d of %d trials", at, returnedFirst, ran)
}

// newSem builds the semaphore under test.
func (sc *scene) newSem(size int64) sem.Semaphore {
	sc.t.Helper()
	sc.s, sc.size = sc.c.newOrFail(sc.t, size), size
	return sc.s
}

// newHeld builds the semaphore under test and takes held of its permits.
func (sc *scene) newHeld(size, held int64) sem.Semaphore {
	sc.t.Helper()
	sc.newSem(size)
	take(sc.t, sc.s, size, held)
	return sc.s
}

// waiter is an Acquire running in its own goroutine.
type waiter struct {
	n        int64
	cancel   context.CancelFunc
	done     atomic.Bool
	err      error       // set before done
	panic    any         // what Acquire panicked with, if it did; set before done
	released bool        // the test gave back what the waiter acquired
	started  atomic.Bool // the goroutine is about to call Acquire
	// deadline is ctx's deadline, if it has one: a wait may end there,
	// however little of it came after the wait's Start.
	deadline time.Time
}

// served reports whether the Acquire returned nil.
func (w *waiter) served() bool { return w.done.Load() && w.err == nil && w.panic == nil }

// release gives back the waiter's permits if it was served and they were not
// given back yet. It reports whether it released them now.
func (w *waiter) release(s sem.Semaphore) bool {
	if !w.served() || w.released {
		return false
	}
	w.released = true
	s.Release(w.n)
	return true
}

// goAcquire starts Acquire(ctx, n) in a new goroutine. The waiter's cancel
// cancels a context derived from ctx.
func (sc *scene) goAcquire(ctx context.Context, s sem.Semaphore, n int64) *waiter {
	ctx, cancel := context.WithCancel(ctx)
	return sc.goAcquireThen(ctx, cancel, s, n, func() {})
}

// goAcquireThen starts Acquire(ctx, n) in a new goroutine that calls then
// after a successful Acquire, before it reports that it returned. cancel is
// the waiter's way to make it give up.
func (sc *scene) goAcquireThen(ctx context.Context, cancel context.CancelFunc, s sem.Semaphore, n int64, then func()) *waiter {
	w := &waiter{n: n, cancel: cancel}
	w.deadline, _ = ctx.Deadline()
	sc.waiters = append(sc.waiters, w)
	go func() {
		defer func() {
			w.panic = recover()
			w.done.Store(true)
		}()
		w.started.Store(true)
		err := s.Acquire(ctx, n)
		if err == nil {
			then()
		}
		w.err = err
	}()
	return w
}

// arrive starts Acquire(n) on the scene's semaphore with a context that
// only the scene cancels, and settles: the waiter has blocked or returned.
func (sc *scene) arrive(n int64) *waiter {
	w := sc.goAcquire(context.Background(), sc.s, n)
	sc.settle()
	return w
}

// awaitStarts waits, in real time, until every waiter's goroutine has
// begun its call, or the stall limit has passed.
func (sc *scene) awaitStarts() {
	deadline := time.Now().Add(sc.c.stallLimit)
	for _, w := range sc.waiters {
		for !w.started.Load() && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
}

// orderedWaiters starts one Acquire per weight, settling between starts so
// that arrival order is the order of weights.
func (sc *scene) orderedWaiters(weights ...int64) []*waiter {
	ws := make([]*waiter, len(weights))
	for i, n := range weights {
		ws[i] = sc.arrive(n)
	}
	return ws
}

// finishWaiter cancels w, waits for it to return, and gives back what it
// was granted, for a check that goes on after w.
func (sc *scene) finishWaiter(w *waiter) {
	w.cancel()
	sc.settle()
	w.release(sc.s)
}

// close ends the scene: every waiter returns and gives back what it was
// granted, and then all permits must be free.
func (sc *scene) close() {
	sc.t.Helper()
	if sc.s == nil {
		return
	}
	forced := sc.unblock()
	sc.settle()
	sc.reportPanics()
	if !forced && !sc.closed && !sc.t.Failed() {
		expectFree(sc.t, sc.s, sc.size, sc.size, "after every waiter returned and gave back what it was granted")
	}
}

// reportPanics fails the check for every waiter whose Acquire panicked: the
// contract lets Acquire panic only on a negative n, which no check passes to
// a waiter.
func (sc *scene) reportPanics() {
	for _, w := range sc.waiters {
		if w.done.Load() && w.panic != nil && !sc.t.Failed() {
			sc.t.Errorf("Acquire(ctx, %d) panicked: %v; Acquire may panic only on a negative n", w.n, w.panic)
		}
	}
}

// unblock cancels every waiter, waits for them, and gives back what they
// were granted. For an implementation that ignores cancellation it releases
// permits until they have all returned, and reports that it had to.
func (sc *scene) unblock() (forced bool) {
	for _, w := range sc.waiters {
		w.cancel()
	}
	if len(sc.waiters) == 0 {
		return false
	}
	sc.settle()
	for range int(sc.size) * (len(sc.waiters) + 1) {
		progress, blocked := false, false
		for _, w := range sc.waiters {
			released, msg := sc.releaseWaiter(w)
			if msg != "" {
				sc.t.Errorf("giving back the %d permits a served waiter holds panicked: %s", w.n, msg)
				return true
			}
			progress = released || progress
			blocked = blocked || !w.done.Load()
		}
		if !blocked {
			return forced
		}
		if !progress {
			forced = true
			if _, panicked := panics(func() { sc.s.Release(1) }); panicked {
				break
			}
		}
		sc.settle()
	}
	sc.t.Errorf("waiters still blocked after their contexts were canceled and every permit was released")
	return true
}

// releaseWaiter is w.release, with a panic turned into its message.
func (sc *scene) releaseWaiter(w *waiter) (released bool, panicMsg string) {
	panicMsg, _ = panics(func() { released = w.release(sc.s) })
	return released, panicMsg
}

// sleep lets time pass: simulated inside a bubble, real otherwise.
func (c *config) sleep(ticks int) { time.Sleep(time.Duration(ticks) * c.tick) }
