package semtest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/semacat/sem"
)

// testClose checks [sem.Closer], when the semaphore implements it: Close
// fails every waiting and later Acquire with ErrClosed, TryAcquire fails,
// and Release still takes back what is held.
func (c *config) testClose(t *testing.T) {
	optionalRows(t, c.checksClose(), c.closeMissing(), []row{
		{"FailsWaiters", c.testCloseFailsWaiters},
		{"FailsWaiterWithoutDone", c.testCloseFailsWaiterWithoutDone},
		{"LaterAcquire", c.testCloseLaterAcquire},
		{"TryAcquire", c.testCloseTryAcquire},
		{"ZeroWeight", c.testCloseZeroWeight},
		{"Release", c.testCloseRelease},
		{"Idempotent", c.testCloseIdempotent},
		{"Leaks", c.testCloseLeaks},
	})
}

// checksClose reports whether the Close checks run: for every semaphore
// that implements sem.Closer, in synctest bubbles and in real time alike.
func (c *config) checksClose() bool { return c.has.closer }

// closeMissing says why the Close checks are skipped.
func (c *config) closeMissing() string {
	return "the semaphore does not implement sem.Closer"
}

// testCloseFailsWaiters: every waiting Acquire returns ErrClosed and holds
// nothing: once the test gives back what it holds, Release(1) over-releases.
func (c *config) testCloseFailsWaiters(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newHeld(3, 2)
		ws := []*waiter{sc.arrive(2), sc.arrive(3)}
		sc.shutdown()
		sc.settle()
		for _, w := range ws {
			expectClosed(t, w, "after Close, a waiting Acquire(%d)", w.n)
		}
		release(t, s, 2, "giving back the 2 held after Close")
		expectPanic(t, "Release(1) after Close, once the test gave back all it held", func() { s.Release(1) }, c.overReleaseWords()...)
	})
}

// testCloseFailsWaiterWithoutDone: Close fails a waiter whose context can
// never be done (context.Background, whose Done is nil), which an
// implementation that waits for Close through the context would miss; when
// the semaphore implements sem.Observer, the waiter no longer counts in
// Waiting.
func (c *config) testCloseFailsWaiterWithoutDone(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newHeld(1, 1)
		w := sc.goAcquireThen(context.Background(), func() {}, s, 1, func() {})
		sc.settle()
		sc.shutdown()
		sc.settle()
		expectClosed(t, w, "after Close, a waiting Acquire(context.Background(), 1)")
		if o, ok := s.(sem.Observer); ok && w.done.Load() {
			if r, p := o.Waiting(); r != 0 || p != 0 {
				t.Errorf("after Close failed the only waiter: Waiting() = %d, %d; want 0, 0", r, p)
			}
		}
		release(t, s, 1, "giving back the 1 held after Close")
	})
}

// testCloseLaterAcquire: an Acquire after Close fails even with every
// permit free; one with a done context returns ctx.Err(), which comes first.
func (c *config) testCloseLaterAcquire(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newSem(3)
		sc.shutdown()
		w := sc.arrive(1)
		expectClosed(t, w, "with all 3 permits free after Close, Acquire(1)")
		sc.finishWaiter(w)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := s.Acquire(ctx, 1)
		if err == nil {
			release(t, s, 1, "giving back an Acquire that should have failed")
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Acquire(canceled ctx, 1) after Close = %v; want context.Canceled: a done context is reported before the closing", err)
		}
	})
}

// testCloseTryAcquire: TryAcquire after Close fails even with every permit
// free.
func (c *config) testCloseTryAcquire(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newSem(3)
		sc.shutdown()
		for _, n := range []int64{1, 3} {
			expectTryAcquireFails(t, s, n, "after Close with all 3 permits free")
		}
	})
}

// testCloseZeroWeight: requests for no permits, which never wait, fail
// after Close too, as every later request must: TryAcquire(0) reports false
// and Acquire(ctx, 0) returns ErrClosed.
func (c *config) testCloseZeroWeight(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newSem(2)
		sc.shutdown()
		expectTryAcquireFails(t, s, 0, "after Close")
		if err := s.Acquire(context.Background(), 0); !errors.Is(err, sem.ErrClosed) {
			t.Errorf("Acquire(ctx, 0) after Close = %v; want an error wrapping sem.ErrClosed", err)
		}
	})
}

// testCloseRelease: holders give back what they hold after Close, and no
// more.
func (c *config) testCloseRelease(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newHeld(3, 2)
		sc.shutdown()
		release(t, s, 1, "giving back 1 of the 2 held after Close")
		release(t, s, 1, "giving back the other one after Close")
		expectPanic(t, "Release(1) after Close with nothing held", func() { s.Release(1) }, c.overReleaseWords()...)
	})
}

// testCloseIdempotent: a second Close does nothing and returns nil.
func (c *config) testCloseIdempotent(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newSem(2)
		sc.shutdown()
		if err := s.(sem.Closer).Close(); err != nil {
			t.Errorf("a second Close() = %v; want nil", err)
		}
		expectTryAcquireFails(t, s, 1, "after a second Close")
	})
}

// testCloseLeaks: waiters failed by Close leave no callback registered on a
// context that is never canceled, and no goroutine.
func (c *config) testCloseLeaks(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		ctx := newNeverDoneContext()
		s := sc.newHeld(2, 2)
		before := bubbleGoroutines()
		ws := make([]*waiter, 3)
		for i := range ws {
			ws[i] = sc.goAcquireThen(ctx, func() {}, s, 1, func() {})
		}
		sc.settle()
		sc.shutdown()
		sc.settle()
		for _, w := range ws {
			expectClosed(t, w, "after Close, a waiting Acquire(1) on a never-canceled context")
		}
		if n := ctx.registered.Load(); n != 0 {
			t.Errorf("%d callbacks were still registered on a never-canceled context after Close failed every Acquire waiting on it", n)
		}
		if !c.realTime() {
			if after := goroutinesSettledTo(before); after > before {
				t.Errorf("%d goroutines before Acquire calls waited, %d after Close failed all of them", before, after)
			}
		}
		release(t, s, 2, "giving back the 2 held after Close")
	})
}

// expectClosed fails t unless w returned an error wrapping sem.ErrClosed.
func expectClosed(t *testing.T, w *waiter, format string, args ...any) {
	t.Helper()
	what := fmt.Sprintf(format, args...)
	switch {
	case !w.done.Load():
		t.Errorf("%s still waits; want an error wrapping sem.ErrClosed", what)
	case !errors.Is(w.err, sem.ErrClosed):
		t.Errorf("%s returned %v; want an error wrapping sem.ErrClosed", what, w.err)
	}
}
