package semtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// testCancel checks that a done context makes Acquire give up with
// ctx.Err() and leaves the semaphore as if the call had never happened, and
// that a cancellation that comes before the grant wins.
func (c *config) testCancel(t *testing.T) {
	run(t, "AlreadyDone", c.testAlreadyDone)
	run(t, "WhileWaiting", func(t *testing.T) {
		c.bubble(t, func(t *testing.T, sc *scene) {
			s := sc.newHeld(3, 3)
			w := sc.arrive(2)
			w.cancel()
			sc.settle()
			if !w.done.Load() {
				t.Error("a waiting Acquire did not return after its context was canceled")
			} else if !errors.Is(w.err, context.Canceled) {
				t.Errorf("a waiting Acquire whose context was canceled returned %v; want context.Canceled", w.err)
			}
			expectFree(t, s, 3, 0, "after the waiter was canceled (3 held)")
			s.Release(1)
			sc.settle()
			expectFree(t, s, 3, 1, "after the waiter was canceled and 1 released")
			s.Release(2)
		})
	})
	run(t, "Timeout", func(t *testing.T) {
		c.bubble(t, func(t *testing.T, sc *scene) {
			s := sc.newHeld(1, 1)
			ctx, cancel := context.WithTimeout(context.Background(), c.tick)
			defer cancel()
			w := sc.goAcquire(ctx, s, 1)
			sc.settle()
			if w.done.Load() {
				t.Errorf("Acquire on a full semaphore returned %v before its timeout", w.err)
			}
			c.sleep(2)
			sc.settle()
			if !w.done.Load() {
				t.Error("Acquire did not return after its context's deadline passed")
			} else if !errors.Is(w.err, context.DeadlineExceeded) {
				t.Errorf("Acquire past its deadline = %v; want context.DeadlineExceeded", w.err)
			}
			s.Release(1)
		})
	})
	run(t, "BeforeGrant", c.testBeforeGrant(false))
	run(t, "BeforeGrantPassesOn", c.testBeforeGrant(true))
	run(t, "GrantedThenReleased", c.testGrantedThenReleased)
	run(t, "HeadDoesNotStrand", func(t *testing.T) {
		// The head waiter wants 2 while 1 is free; when it gives up, the
		// waiter behind it, which wants 1, must be served.
		c.bubble(t, func(t *testing.T, sc *scene) {
			s := sc.newHeld(2, 2)
			head := sc.arrive(2)
			behind := sc.arrive(1)
			s.Release(1)
			sc.settle()
			head.cancel()
			sc.settle()
			if !behind.done.Load() || behind.err != nil {
				t.Errorf("after the head waiter (Acquire(2)) was canceled with 1 permit free, the Acquire(1) behind it did not return nil (done %v, err %v)",
					behind.done.Load(), behind.err)
			}
			s.Release(1) // the test's other permit
		})
	})
	run(t, "ManyWaiters", c.testManyWaiters)
}

// testBeforeGrant is go.dev/issue/63615: size 2, 1 held, Acquire(ctx, 2)
// waits; its context is canceled, and only then is the permit released,
// with no pause between. The cancellation came first, so it wins. Whether
// the waiter notices the cancellation before the Release runs is up to the
// scheduler; only when it does not is a wrong grant possible, so the check
// runs several trials, every fourth letting the waiter give up first, and
// logs how often the waiter had already returned. With behind, an
// Acquire(1) arrives after the Acquire(2) (and is served at once where
// newcomers may pass a waiter): the canceled waiter's permits must go to
// it, leaving 1 free.
func (c *config) testBeforeGrant(behind bool) func(t *testing.T) {
	return func(t *testing.T) {
		c.bubbleTrials(t, 20, "when Release(1) ran", func(t *testing.T, sc *scene, trial int) bool {
			return beforeGrantTrial(t, sc, trial, behind)
		})
	}
}

// beforeGrantTrial is one trial of testBeforeGrant.
func beforeGrantTrial(t *testing.T, sc *scene, trial int, behind bool) (returnedFirst bool) {
	s := sc.newHeld(2, 1)
	w := sc.arrive(2)
	if w.done.Load() {
		t.Fatalf("Acquire(2) with 1 of 2 permits free returned %v without waiting", w.err)
	}
	var next *waiter
	if behind {
		next = sc.arrive(1)
	}
	w.cancel()
	if trial%4 == 3 {
		sc.settle() // the other order: the waiter gives up before the Release
	}
	returnedFirst = w.done.Load()
	s.Release(1)
	sc.settle()
	switch {
	case !w.done.Load():
		t.Errorf("trial %d: a waiting Acquire(2) did not return after its context was canceled and the held permit released", trial)
	case w.err == nil:
		t.Errorf("trial %d: Acquire(2) returned nil although its context was canceled before Release(1) freed the permits; a cancellation before the grant must win (go.dev/issue/63615)", trial)
	case !errors.Is(w.err, context.Canceled):
		t.Errorf("trial %d: Acquire(2) canceled before the grant returned %v; want context.Canceled", trial, w.err)
	case behind && !next.served():
		t.Errorf("trial %d: the Acquire(1) behind a waiting Acquire(2) was not served after the Acquire(2) was canceled and the held permit released (done %v, err %v)", trial, next.done.Load(), next.err)
	case behind:
		expectFree(t, s, 2, 1, "after the canceled Acquire(2) returned and the held permit was released, with the Acquire(1) behind it served")
	default:
		expectFree(t, s, 2, 2, "after the canceled Acquire(2) returned and the held permit was released")
	}
	return returnedFirst
}

// testGrantedThenReleased: a waiter is granted its permit by a Release;
// another goroutine then cancels its context and releases the permit, which
// is legal, since it is held. The waiter can no longer give the permit
// back, so it must return nil; it may return ctx.Err() only if nothing had
// been granted to it, and it never panics. Whether the grant happens inside
// the first Release or only when the waiter runs is up to the
// implementation and the scheduler: the second Release panics ("released
// more than held") exactly when it had not happened yet, which is legal too.
// The trials give the waiter more and more time to run before the
// cancellation, and log how often each case came up.
func (c *config) testGrantedThenReleased(t *testing.T) {
	var takenBack, trials int
	c.bubbleTrials(t, 20, "at the cancellation", func(t *testing.T, sc *scene, trial int) bool {
		trials++
		s := sc.newHeld(1, 1)
		w := sc.arrive(1)
		s.Release(1) // grants the waiter, at once or when it runs
		letWaiterRun(sc, trial%5)
		returnedFirst := w.done.Load()
		w.cancel()
		msg, panicked := panics(func() { s.Release(1) })
		if !panicked {
			takenBack++
			w.released = true // the permit is back: nobody holds it now
		}
		sc.settle()
		switch {
		case !w.done.Load():
			t.Errorf("trial %d: Acquire(1) did not return after Release(1), cancel(), Release(1)", trial)
		case w.panic != nil:
			t.Errorf("trial %d: Acquire(1) panicked after it was granted, its context canceled and its permit released by another goroutine: %v; it must return nil, since it cannot give back a permit that is no longer held", trial, w.panic)
		case panicked && !strings.Contains(msg, "released more than held"):
			t.Errorf("trial %d: the second Release(1) panicked with %q; want it to succeed (the permit was granted) or to panic \"released more than held\" (not yet granted)", trial, msg)
		case !panicked && w.err != nil:
			t.Errorf("trial %d: Acquire(1) returned %v after its permit was granted and released by another goroutine; an error means it held nothing, yet Release(1) found the permit held", trial, w.err)
		}
		return returnedFirst
	})
	t.Logf("the second Release(1) found the permit granted in %d of %d trials", takenBack, trials)
}

// testAlreadyDone checks that a context done before the call acquires
// nothing, whatever the weight, even when every permit is free.
func (c *config) testAlreadyDone(t *testing.T) {
	const size = 3
	s := c.newOrFail(t, size)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel2()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want error
	}{{"canceled", canceled, context.Canceled}, {"expired", expired, context.DeadlineExceeded}} {
		for _, n := range []int64{1, 2, size} {
			if err := s.Acquire(tc.ctx, n); !errors.Is(err, tc.want) {
				t.Errorf("Acquire(%s ctx, %d) with all %d permits free = %v; want %v", tc.name, n, size, err, tc.want)
				if err == nil {
					s.Release(n)
				}
			}
			expectFree(t, s, size, size, fmt.Sprintf("after Acquire(%s ctx, %d)", tc.name, n))
		}
	}
}

// testManyWaiters cancels every other one of many waiters; the rest are all
// served.
func (c *config) testManyWaiters(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		const size, n = 3, 12
		s := sc.newHeld(size, size)
		ws := make([]*waiter, n)
		for i := range ws {
			ws[i] = sc.goAcquire(context.Background(), s, 1)
		}
		sc.settle()
		var kept []*waiter
		for i, w := range ws {
			if i%2 == 1 {
				kept = append(kept, w)
				continue
			}
			w.cancel()
			sc.settle()
			if !w.done.Load() || !errors.Is(w.err, context.Canceled) {
				t.Errorf("canceled waiter %d: done %v, err %v; want context.Canceled", i, w.done.Load(), w.err)
			}
		}
		s.Release(size)
		sc.settle()
		for len(served(kept)) < len(kept) {
			progress := false
			for _, w := range kept {
				progress = w.release(s) || progress
			}
			if !progress {
				t.Errorf("%d of %d waiters that were not canceled were served, then the rest were never woken", len(served(kept)), len(kept))
				break
			}
			sc.settle()
		}
	})
}
