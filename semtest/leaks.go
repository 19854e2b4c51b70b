package semtest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
)

// testLeaks checks that calls which waited and were served leave nothing
// behind, even when their context is never canceled: a long-lived context
// (a server's, a worker's) outlives millions of Acquire calls, so a
// registration or goroutine per call is a leak that never ends.
func (c *config) testLeaks(t *testing.T) {
	run(t, "AfterFunc", func(t *testing.T) {
		c.bubble(t, func(t *testing.T, sc *scene) {
			ctx := newNeverDoneContext()
			c.serveWaiters(t, sc, ctx)
			sc.settle()
			if n := ctx.registered.Load(); n != 0 {
				t.Errorf("%d callbacks registered on a context that is never canceled (through context.AfterFunc or context.WithCancel) were still registered after every Acquire returned; stop them before Acquire returns", n)
			}
		})
	})
	run(t, "Goroutines", func(t *testing.T) {
		if c.realTime() {
			t.Skip("a distributed client keeps goroutines of its own; check leaks with goleak in TestMain")
		}
		c.bubble(t, func(t *testing.T, sc *scene) {
			ctx := newNeverDoneContext()
			sc.newSem(2)
			before := bubbleGoroutines()
			c.serveWaiters(t, sc, ctx)
			sc.settle()
			if after := goroutinesSettledTo(before); after > before {
				t.Errorf("%d goroutines before Acquire calls on a never-canceled context waited, %d after all of them were served and returned; the implementation leaks goroutines", before, after)
			}
		})
	})
}

// serveWaiters makes Acquire calls on ctx (built by the caller, never
// canceled) both ways, at once with permits free and after waiting, and
// lets them all be served. It builds a semaphore of size 2 unless the scene
// has one.
func (c *config) serveWaiters(t *testing.T, sc *scene, ctx context.Context) {
	t.Helper()
	s := sc.s
	if s == nil {
		s = sc.newSem(2)
	}
	if err := s.Acquire(ctx, 1); err != nil {
		t.Fatalf("Acquire(1) on a fresh semaphore of size 2: %v", err)
	}
	if !s.TryAcquire(1) {
		t.Fatal("TryAcquire(1) failed with 1 of 2 permits free")
	}
	ws := make([]*waiter, 3)
	for i := range ws {
		ws[i] = sc.goAcquireThen(ctx, func() {}, s, 1, func() {})
	}
	sc.settle()
	if got := served(ws); len(got) > 0 {
		t.Errorf("waiters %v were served with all permits held", got)
	}
	s.Release(2)
	for range len(ws) + 1 {
		sc.settle()
		for _, w := range ws {
			w.release(s)
		}
	}
	if got := served(ws); len(got) != len(ws) {
		t.Errorf("only waiters %v of %d were served after every permit was given back", got, len(ws))
	}
}

// neverDoneContext is a context that is never canceled, yet has a Done
// channel, as a server's or a worker's long-lived context does. It
// implements the AfterFunc method that context.AfterFunc and
// context.WithCancel use, when a parent provides one, instead of starting a
// goroutine, and counts the callbacks registered and not yet stopped.
type neverDoneContext struct {
	context.Context // Background: no deadline, no values
	done            chan struct{}
	registered      atomic.Int64
}

func newNeverDoneContext() *neverDoneContext {
	return &neverDoneContext{Context: context.Background(), done: make(chan struct{})}
}

func (c *neverDoneContext) Done() <-chan struct{} { return c.done }

// AfterFunc registers f, which never runs since the context is never done,
// and returns the function that unregisters it.
func (c *neverDoneContext) AfterFunc(f func()) (stop func() bool) {
	c.registered.Add(1)
	var once sync.Once
	return func() bool {
		stopped := false
		once.Do(func() {
			stopped = true
			c.registered.Add(-1)
		})
		return stopped
	}
}
