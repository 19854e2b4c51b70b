// Package semtest is a conformance suite for implementations of
// [sem.Semaphore], in the spirit of testing/fstest.TestFS and
// golang.org/x/net/nettest.TestConn: third parties run it against their own
// semaphore to learn, subtest by subtest, which promise of the contract they
// keep and which they break.
//
// Call [Run] from a test with a constructor and the guarantees the
// implementation claims beyond the contract:
//
//	func TestConformance(t *testing.T) {
//		semtest.Run(t, func(size int64) sem.Semaphore { return mysem.New(size) },
//			semtest.Guarantees{NoStarvation: true})
//	}
//
// Every check has its own subtest name (for example "Cancel/WhileWaiting" or
// "Guarantees/FIFO"), so `go test -run 'Conformance/Cancel'` reruns just one
// family, and a failure names exactly the promise that was broken. Checks of
// guarantees that were not claimed are skipped, not failed.
//
// Checks about blocking, ordering and time run inside testing/synctest
// bubbles: they are deterministic, take no real time, and a goroutine left
// blocked when a check ends is reported. The semaphore is constructed inside
// each bubble, so its channels, timers and condition variables belong to it.
// An implementation whose waiting happens outside the process (on the
// network, as with a distributed semaphore) cannot be observed by synctest;
// it passes [WithSettle] and the suite runs in real time instead. Stress
// checks always run in real time, with real parallelism, bounded in count.
package semtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/semacat/sem"
)

// Guarantees declares what an implementation promises beyond the contract.
// The suite checks each claimed guarantee and skips the others.
type Guarantees struct {
	// FIFO: requests of any weight are granted in arrival order. A request
	// at the head of the queue that does not fit blocks those behind it.
	FIFO bool

	// UnitFIFO: single-permit requests are granted in arrival order. FIFO
	// implies it.
	UnitFIFO bool

	// NoStarvation: a waiting Acquire(size) completes while Acquire(1)
	// callers keep cycling, so some permits are always held.
	NoStarvation bool

	// NoBarging: TryAcquire fails while an Acquire is waiting, even when
	// enough permits are free for the TryAcquire itself.
	NoBarging bool
}

// Option adjusts how [Run] exercises an implementation.
type Option func(*config)

// WithSettle runs the suite in real time instead of inside synctest bubbles.
// The suite calls settle wherever it must wait until every goroutine it has
// started has either blocked in Acquire or returned; a distributed
// implementation typically waits until its waiters are registered on the
// server, or for a fixed interval that comfortably covers a round trip. Use
// it only when synctest cannot see the implementation's blocking.
func WithSettle(settle func()) Option {
	return func(c *config) { c.settle = settle }
}

// WithTick sets the unit of time used by the real-time suite (see
// [WithSettle]) for timeouts and hold times. The default is 50ms. It has no
// effect inside synctest bubbles, where time is simulated.
func WithTick(d time.Duration) Option {
	return func(c *config) { c.tick = d }
}

// WithStress sets the number of goroutines and the operations each performs
// in the stress checks. The defaults are 8 goroutines of 2000 operations, or
// 4 of 25 in real-time mode.
func WithStress(goroutines, ops int) Option {
	return func(c *config) { c.goroutines, c.ops = goroutines, ops }
}

// NewFunc constructs a semaphore of the given size. It must panic when size
// is below 1.
type NewFunc func(size int64) sem.Semaphore

type config struct {
	newSem     NewFunc
	g          Guarantees
	settle     func()
	tick       time.Duration
	goroutines int
	ops        int
}

func (c *config) realTime() bool { return c.settle != nil }

// Run checks the implementation built by newSem against every row of the
// semacat contract and against the guarantees it claims in g.
func Run(t *testing.T, newSem NewFunc, g Guarantees, opts ...Option) {
	t.Helper()
	c := &config{newSem: newSem, g: g, tick: 50 * time.Millisecond}
	for _, o := range opts {
		o(c)
	}
	if c.goroutines == 0 { // WithStress not given
		c.goroutines, c.ops = 8, 2000
		if c.realTime() {
			c.goroutines, c.ops = 4, 25
		}
	}
	if c.g.FIFO {
		c.g.UnitFIFO = true
	}

	t.Run("BadInput", c.testBadInput)
	t.Run("ExceedsSize", c.testExceedsSize)
	t.Run("ZeroWeight", c.testZeroWeight)
	t.Run("Acquire", c.testAcquire)
	t.Run("Cancel", c.testCancel)
	t.Run("Liveness", c.testLiveness)
	t.Run("Guarantees", c.testGuarantees)
	t.Run("Stress", c.testStress)
}

// scene is one check that watches goroutines block: the semaphore under
// test, the waiters the check started, and the way to wait for them to block.
type scene struct {
	t       *testing.T
	c       *config
	settle  func()
	s       sem.Semaphore
	size    int64
	waiters []*waiter
}

// bubble runs f where blocking can be observed: in a synctest bubble, or in
// real time when the implementation needs it. Before it returns, every waiter
// f started has returned, so that a broken implementation is reported by the
// failing check's name instead of deadlocking the bubble.
func (c *config) bubble(t *testing.T, f func(t *testing.T, sc *scene)) {
	run := func(t *testing.T, settle func()) {
		sc := &scene{t: t, c: c, settle: settle}
		defer sc.unblock()
		f(t, sc)
	}
	if c.realTime() {
		run(t, c.settle)
		return
	}
	synctest.Test(t, func(t *testing.T) { run(t, synctest.Wait) })
}

// newSem builds the semaphore under test.
func (sc *scene) newSem(size int64) sem.Semaphore {
	sc.t.Helper()
	sc.s, sc.size = sc.c.newOrFail(sc.t, size), size
	return sc.s
}

// goAcquire starts Acquire(ctx, n) in a new goroutine. The waiter's cancel
// cancels a context derived from ctx.
func (sc *scene) goAcquire(ctx context.Context, s sem.Semaphore, n int64) *waiter {
	ctx, cancel := context.WithCancel(ctx)
	w := &waiter{n: n, cancel: cancel}
	sc.waiters = append(sc.waiters, w)
	go func() {
		w.err = s.Acquire(ctx, n)
		w.done.Store(true)
	}()
	return w
}

// orderedWaiters starts one Acquire per weight, settling between starts so
// that arrival order is the order of weights.
func (sc *scene) orderedWaiters(s sem.Semaphore, weights ...int64) []*waiter {
	ws := make([]*waiter, len(weights))
	for i, n := range weights {
		ws[i] = sc.goAcquire(context.Background(), s, n)
		sc.settle()
	}
	return ws
}

// unblock cancels every waiter and, for an implementation that ignores
// cancellation, releases permits until they have all returned. A correct
// implementation needs none of this: its waiters have returned already.
func (sc *scene) unblock() {
	for _, w := range sc.waiters {
		w.cancel()
	}
	if len(sc.waiters) == 0 {
		return
	}
	sc.settle()
	for range int(sc.size) * (len(sc.waiters) + 1) {
		progress, blocked := false, false
		for _, w := range sc.waiters {
			progress = w.release(sc.s) || progress
			blocked = blocked || !w.done.Load()
		}
		if !blocked {
			return
		}
		if !progress {
			if _, panicked := panics(func() { sc.s.Release(1) }); panicked {
				break
			}
		}
		sc.settle()
	}
	sc.t.Errorf("waiters still blocked after their contexts were canceled and every permit was released")
}

// sleep lets time pass: simulated inside a bubble, real otherwise.
func (c *config) sleep(ticks int) { time.Sleep(time.Duration(ticks) * c.tick) }

// newOrFail builds a semaphore, turning a panic into a test failure.
func (c *config) newOrFail(t *testing.T, size int64) sem.Semaphore {
	t.Helper()
	var s sem.Semaphore
	if msg, ok := panics(func() { s = c.newSem(size) }); ok {
		t.Fatalf("New(%d) panicked: %v", size, msg)
	}
	if s == nil {
		t.Fatalf("New(%d) returned nil", size)
	}
	return s
}

// panics calls f and reports the panic message, if it panicked.
func panics(f func()) (msg string, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			msg, panicked = fmt.Sprint(r), true
		}
	}()
	f()
	return "", false
}

// expectPanic fails t unless f panics with a message containing every one of
// the given words.
func expectPanic(t *testing.T, call string, f func(), words ...string) {
	t.Helper()
	msg, ok := panics(f)
	if !ok {
		t.Errorf("%s did not panic; want a panic naming %q", call, words)
		return
	}
	for _, w := range words {
		if !strings.Contains(msg, w) {
			t.Errorf("%s panicked with %q; want the message to contain %q", call, msg, w)
		}
	}
}

// expectFree fails t unless exactly free permits are available right now. It
// probes with TryAcquire and leaves the semaphore as it found it.
func expectFree(t *testing.T, s sem.Semaphore, size, free int64, when string) {
	t.Helper()
	if free < size && s.TryAcquire(free+1) {
		s.Release(free + 1)
		t.Errorf("%s: TryAcquire(%d) succeeded; want only %d permits free", when, free+1, free)
	}
	if free > 0 {
		if !s.TryAcquire(free) {
			t.Errorf("%s: TryAcquire(%d) failed; want %d permits free", when, free, free)
			return
		}
		s.Release(free)
	}
}

// waiter is an Acquire running in its own goroutine.
type waiter struct {
	n        int64
	cancel   context.CancelFunc
	done     atomic.Bool
	err      error // set before done
	released bool  // the test gave back what the waiter acquired
}

// served reports whether the Acquire returned nil.
func (w *waiter) served() bool { return w.done.Load() && w.err == nil }

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

// finish cancels w, waits for it to return, and gives back what it acquired.
func finish(s sem.Semaphore, w *waiter, settle func()) {
	w.cancel()
	settle()
	w.release(s)
}

func (c *config) testBadInput(t *testing.T) {
	t.Run("New", func(t *testing.T) {
		for _, size := range []int64{0, -1, -1 << 63} {
			expectPanic(t, fmt.Sprintf("New(%d)", size), func() { c.newSem(size) }, fmt.Sprint(size))
		}
	})
	methods := []struct {
		name string
		call func(s sem.Semaphore, n int64)
	}{
		{"Acquire", func(s sem.Semaphore, n int64) { _ = s.Acquire(context.Background(), n) }},
		{"TryAcquire", func(s sem.Semaphore, n int64) { s.TryAcquire(n) }},
		{"Release", func(s sem.Semaphore, n int64) { s.Release(n) }},
	}
	for _, m := range methods {
		t.Run("NegativeWeight/"+m.name, func(t *testing.T) {
			s := c.newOrFail(t, 3)
			if !s.TryAcquire(1) {
				t.Fatal("TryAcquire(1) failed on a fresh semaphore of size 3")
			}
			for _, n := range []int64{-1, -1 << 63} {
				expectPanic(t, fmt.Sprintf("%s(%d)", m.name, n), func() { m.call(s, n) }, m.name, fmt.Sprint(n))
			}
			expectFree(t, s, 3, 2, "after the panics")
			s.Release(1)
		})
	}
	t.Run("OverRelease/Fresh", func(t *testing.T) {
		s := c.newOrFail(t, 2)
		expectPanic(t, "Release(1) on a fresh semaphore", func() { s.Release(1) }, "released more than held")
		expectFree(t, s, 2, 2, "after the panic")
	})
	t.Run("OverRelease/BeyondHeld", func(t *testing.T) {
		s := c.newOrFail(t, 4)
		if err := s.Acquire(context.Background(), 2); err != nil {
			t.Fatalf("Acquire(2) on a fresh semaphore of size 4: %v", err)
		}
		expectPanic(t, "Release(3) holding 2", func() { s.Release(3) }, "released more than held")
		expectFree(t, s, 4, 2, "after the panic (2 still held)")
		s.Release(2)
		expectFree(t, s, 4, 4, "after releasing the 2 held")
	})
}

func (c *config) testExceedsSize(t *testing.T) {
	t.Run("Acquire", func(t *testing.T) {
		c.bubble(t, func(t *testing.T, sc *scene) {
			s := sc.newSem(3)
			for _, held := range []int64{0, 3} {
				if held > 0 && !s.TryAcquire(held) {
					t.Fatalf("TryAcquire(%d) failed on a fresh semaphore", held)
				}
				w := sc.goAcquire(context.Background(), s, 4)
				sc.settle()
				if !w.done.Load() {
					t.Errorf("Acquire(4) on a semaphore of size 3 (holding %d) blocked; want an error at once", held)
				} else if !errors.Is(w.err, sem.ErrExceedsSize) {
					t.Errorf("Acquire(4) on a semaphore of size 3 = %v; want an error wrapping sem.ErrExceedsSize", w.err)
				}
				if held > 0 {
					s.Release(held)
					sc.settle()
				}
				finish(s, w, sc.settle)
				if w.err == nil {
					t.Fatal("Acquire(4) on a semaphore of size 3 returned nil")
				}
				expectFree(t, s, 3, 3, "after Acquire(4)")
			}
		})
	})
	t.Run("TryAcquire", func(t *testing.T) {
		s := c.newOrFail(t, 3)
		if s.TryAcquire(4) {
			t.Fatal("TryAcquire(4) on a semaphore of size 3 succeeded")
		}
		expectFree(t, s, 3, 3, "after TryAcquire(4)")
	})
}

func (c *config) testZeroWeight(t *testing.T) {
	t.Run("AcquireWhenFull", func(t *testing.T) {
		c.bubble(t, func(t *testing.T, sc *scene) {
			s := sc.newSem(2)
			if !s.TryAcquire(2) {
				t.Fatal("TryAcquire(2) failed on a fresh semaphore of size 2")
			}
			w := sc.goAcquire(context.Background(), s, 0)
			sc.settle()
			if !w.done.Load() {
				t.Error("Acquire(ctx, 0) blocked on a full semaphore; want nil at once")
			} else if w.err != nil {
				t.Errorf("Acquire(ctx, 0) = %v; want nil", w.err)
			}
			s.Release(2)
			sc.settle()
			finish(s, w, sc.settle)
			expectFree(t, s, 2, 2, "after Acquire(ctx, 0)")
		})
	})
	t.Run("AcquireDoneContext", func(t *testing.T) {
		s := c.newOrFail(t, 2)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := s.Acquire(ctx, 0); !errors.Is(err, context.Canceled) {
			t.Errorf("Acquire(canceled ctx, 0) = %v; want context.Canceled", err)
		}
	})
	t.Run("TryAcquire", func(t *testing.T) {
		s := c.newOrFail(t, 2)
		if !s.TryAcquire(2) {
			t.Fatal("TryAcquire(2) failed on a fresh semaphore of size 2")
		}
		if !s.TryAcquire(0) {
			t.Error("TryAcquire(0) on a full semaphore = false; want true (a no-op)")
		}
		s.Release(2)
		expectFree(t, s, 2, 2, "after TryAcquire(0)")
	})
	t.Run("Release", func(t *testing.T) {
		s := c.newOrFail(t, 2)
		if msg, ok := panics(func() { s.Release(0) }); ok {
			t.Errorf("Release(0) with nothing held panicked: %s; want a no-op", msg)
		}
		expectFree(t, s, 2, 2, "after Release(0)")
	})
}

func (c *config) testAcquire(t *testing.T) {
	t.Run("HoldsPermits", func(t *testing.T) {
		s := c.newOrFail(t, 5)
		for _, n := range []int64{1, 2, 5} {
			if err := s.Acquire(context.Background(), n); err != nil {
				t.Fatalf("Acquire(%d) on a free semaphore of size 5: %v", n, err)
			}
			expectFree(t, s, 5, 5-n, fmt.Sprintf("after Acquire(%d)", n))
			s.Release(n)
		}
	})
	t.Run("TryAcquireAllOrNothing", func(t *testing.T) {
		s := c.newOrFail(t, 4)
		if !s.TryAcquire(3) {
			t.Fatal("TryAcquire(3) failed on a fresh semaphore of size 4")
		}
		if s.TryAcquire(2) {
			t.Error("TryAcquire(2) succeeded with only 1 permit free")
			s.Release(2)
		}
		expectFree(t, s, 4, 1, "after a failed TryAcquire(2)")
		s.Release(3)
	})
	t.Run("BlocksWhenFull", func(t *testing.T) {
		c.bubble(t, func(t *testing.T, sc *scene) {
			s := sc.newSem(2)
			if err := s.Acquire(context.Background(), 2); err != nil {
				t.Fatalf("Acquire(2) on a fresh semaphore of size 2: %v", err)
			}
			w := sc.goAcquire(context.Background(), s, 1)
			sc.settle()
			if w.done.Load() {
				t.Errorf("Acquire(1) on a full semaphore returned %v without waiting; want it to block", w.err)
			}
			s.Release(1)
			sc.settle()
			if !w.done.Load() || w.err != nil {
				t.Errorf("after Release(1), the waiting Acquire(1) did not return nil (done %v, err %v)", w.done.Load(), w.err)
			}
			s.Release(1) // the test's other permit
			sc.settle()
			finish(s, w, sc.settle)
			expectFree(t, s, 2, 2, "after all releases")
		})
	})
}

func (c *config) testCancel(t *testing.T) {
	t.Run("AlreadyDone", func(t *testing.T) {
		s := c.newOrFail(t, 2)
		canceled, cancel := context.WithCancel(context.Background())
		cancel()
		expired, cancel2 := context.WithDeadline(context.Background(), time.Unix(0, 0))
		defer cancel2()
		for _, tc := range []struct {
			ctx  context.Context
			want error
		}{{canceled, context.Canceled}, {expired, context.DeadlineExceeded}} {
			if err := s.Acquire(tc.ctx, 1); !errors.Is(err, tc.want) {
				t.Errorf("Acquire(done ctx, 1) with free permits = %v; want %v", err, tc.want)
				if err == nil {
					s.Release(1)
				}
			}
		}
		expectFree(t, s, 2, 2, "after Acquire with done contexts")
	})
	t.Run("WhileWaiting", func(t *testing.T) {
		c.bubble(t, func(t *testing.T, sc *scene) {
			s := sc.newSem(3)
			if err := s.Acquire(context.Background(), 3); err != nil {
				t.Fatalf("Acquire(3) on a fresh semaphore of size 3: %v", err)
			}
			w := sc.goAcquire(context.Background(), s, 2)
			sc.settle()
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
			sc.settle()
			finish(s, w, sc.settle)
			expectFree(t, s, 3, 3, "after all releases")
		})
	})
	t.Run("Timeout", func(t *testing.T) {
		c.bubble(t, func(t *testing.T, sc *scene) {
			s := sc.newSem(1)
			if !s.TryAcquire(1) {
				t.Fatal("TryAcquire(1) failed on a fresh semaphore")
			}
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
			sc.settle()
			finish(s, w, sc.settle)
			expectFree(t, s, 1, 1, "after the timeout")
		})
	})
	t.Run("HeadDoesNotStrand", func(t *testing.T) {
		// The head waiter wants 2 while 1 is free; when it gives up, the
		// waiter behind it, which wants 1, must be served.
		c.bubble(t, func(t *testing.T, sc *scene) {
			s := sc.newSem(2)
			if err := s.Acquire(context.Background(), 2); err != nil {
				t.Fatalf("Acquire(2) on a fresh semaphore: %v", err)
			}
			head := sc.goAcquire(context.Background(), s, 2)
			sc.settle()
			behind := sc.goAcquire(context.Background(), s, 1)
			sc.settle()
			s.Release(1)
			sc.settle()
			head.cancel()
			sc.settle()
			if !behind.done.Load() || behind.err != nil {
				t.Errorf("after the head waiter (Acquire(2)) was canceled with 1 permit free, the Acquire(1) behind it did not return nil (done %v, err %v)",
					behind.done.Load(), behind.err)
			}
			s.Release(1) // the test's other permit
			sc.settle()
			finish(s, head, sc.settle)
			finish(s, behind, sc.settle)
			expectFree(t, s, 2, 2, "after all releases")
		})
	})
	t.Run("ManyWaiters", func(t *testing.T) {
		// Cancel every other one of many waiters; the rest are all served.
		c.bubble(t, func(t *testing.T, sc *scene) {
			const size, n = 3, 12
			s := sc.newSem(size)
			if err := s.Acquire(context.Background(), size); err != nil {
				t.Fatalf("Acquire(%d) on a fresh semaphore: %v", size, err)
			}
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
			for _, w := range ws {
				finish(s, w, sc.settle)
			}
			sc.settle()
			expectFree(t, s, size, size, "after all waiters returned")
		})
	})
}

func (c *config) testLiveness(t *testing.T) {
	t.Run("EachReleaseWakesOne", func(t *testing.T) {
		c.bubble(t, func(t *testing.T, sc *scene) {
			const n = 5
			s := sc.newSem(1)
			if !s.TryAcquire(1) {
				t.Fatal("TryAcquire(1) failed on a fresh semaphore")
			}
			ws := make([]*waiter, n)
			for i := range ws {
				ws[i] = sc.goAcquire(context.Background(), s, 1)
			}
			sc.settle()
			s.Release(1) // the test's permit
			for round := 1; ; round++ {
				sc.settle()
				if got := len(served(ws)); got != round {
					t.Errorf("after release %d, %d waiters were served; want %d (a lost wake-up)", round, got, round)
					break
				}
				if round == n {
					break
				}
				for _, w := range ws {
					if w.release(s) {
						break
					}
				}
			}
			for _, w := range ws {
				finish(s, w, sc.settle)
			}
			sc.settle()
			expectFree(t, s, 1, 1, "after all waiters returned")
		})
	})
	t.Run("ReleaseWakesAllThatFit", func(t *testing.T) {
		c.bubble(t, func(t *testing.T, sc *scene) {
			s := sc.newSem(4)
			if err := s.Acquire(context.Background(), 4); err != nil {
				t.Fatalf("Acquire(4) on a fresh semaphore: %v", err)
			}
			ws := []*waiter{
				sc.goAcquire(context.Background(), s, 1),
				sc.goAcquire(context.Background(), s, 2),
				sc.goAcquire(context.Background(), s, 1),
			}
			sc.settle()
			s.Release(4)
			sc.settle()
			for i, w := range ws {
				if !w.done.Load() || w.err != nil {
					t.Errorf("Release(4) did not wake waiter %d (Acquire(%d)): done %v, err %v; all three fit", i, w.n, w.done.Load(), w.err)
				}
			}
			for _, w := range ws {
				finish(s, w, sc.settle)
			}
			sc.settle()
			expectFree(t, s, 4, 4, "after all waiters returned")
		})
	})
}

func (c *config) testGuarantees(t *testing.T) {
	claim := func(t *testing.T, claimed bool, name string) {
		if !claimed {
			t.Skipf("%s not claimed", name)
		}
	}
	t.Run("FIFO", func(t *testing.T) {
		claim(t, c.g.FIFO, "FIFO")
		c.testFIFO(t)
	})
	t.Run("UnitFIFO", func(t *testing.T) {
		claim(t, c.g.UnitFIFO, "UnitFIFO")
		c.testUnitFIFO(t)
	})
	t.Run("NoBarging", func(t *testing.T) {
		claim(t, c.g.NoBarging, "NoBarging")
		c.testNoBarging(t)
	})
	t.Run("NoStarvation", func(t *testing.T) {
		claim(t, c.g.NoStarvation, "NoStarvation")
		c.testNoStarvation(t)
	})
}

// served lists the indexes of the waiters that returned nil.
func served(ws []*waiter) []int {
	var got []int
	for i, w := range ws {
		if w.served() {
			got = append(got, i)
		}
	}
	return got
}

func (c *config) testFIFO(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newSem(3)
		if err := s.Acquire(context.Background(), 3); err != nil {
			t.Fatalf("Acquire(3) on a fresh semaphore: %v", err)
		}
		// Arrival order: waiter 0 wants 2, 1 wants 1, 2 wants 3, 3 wants 1.
		ws := sc.orderedWaiters(s, 2, 1, 3, 1)
		const test = -1
		steps := []struct {
			from int // whose permits to give back: test (1 of its own) or a waiter (all of its)
			want []int
			why  string
		}{
			{test, nil, "1 free: the head wants 2, so nobody may pass it"},
			{test, []int{0}, "2 free: the head is served"},
			{test, []int{0, 1}, "1 free: the next in line is served"},
			{0, []int{0, 1}, "2 free: waiter 2 wants 3, so waiter 3 may not pass it"},
			{1, []int{0, 1, 2}, "3 free: waiter 2 is served"},
			{2, []int{0, 1, 2, 3}, "3 free: the last waiter is served"},
		}
		for i, st := range steps {
			if st.from == test {
				s.Release(1)
			} else {
				ws[st.from].release(s)
			}
			sc.settle()
			if got := served(ws); fmt.Sprint(got) != fmt.Sprint(st.want) {
				t.Errorf("step %d: served waiters %v; want %v (%s; arrival order, weights 2,1,3,1, size 3)", i, got, st.want, st.why)
				break
			}
		}
		for _, w := range ws {
			finish(s, w, sc.settle)
		}
		sc.settle()
		if !t.Failed() {
			expectFree(t, s, 3, 3, "after all waiters returned")
		}
	})
}

func (c *config) testUnitFIFO(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newSem(1)
		if !s.TryAcquire(1) {
			t.Fatal("TryAcquire(1) failed on a fresh semaphore")
		}
		ws := sc.orderedWaiters(s, 1, 1, 1, 1, 1)
		s.Release(1)
		for round := range ws {
			sc.settle()
			want := make([]int, round+1)
			for i := range want {
				want[i] = i
			}
			if got := served(ws); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("after release %d: served waiters %v; want %v (arrival order)", round+1, got, want)
				break
			}
			ws[round].release(s)
		}
		for _, w := range ws {
			finish(s, w, sc.settle)
		}
		sc.settle()
		if !t.Failed() {
			expectFree(t, s, 1, 1, "after all waiters returned")
		}
	})
}

func (c *config) testNoBarging(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newSem(2)
		if err := s.Acquire(context.Background(), 2); err != nil {
			t.Fatalf("Acquire(2) on a fresh semaphore: %v", err)
		}
		w := sc.goAcquire(context.Background(), s, 2)
		sc.settle()
		s.Release(1) // 1 free, but the waiter wants 2
		sc.settle()
		if s.TryAcquire(1) {
			t.Error("TryAcquire(1) succeeded while an Acquire(2) was waiting; a barging TryAcquire can starve waiters")
			s.Release(1)
		}
		s.Release(1)
		sc.settle()
		if !w.done.Load() || w.err != nil {
			t.Errorf("the waiting Acquire(2) was not served once 2 permits were free: done %v, err %v", w.done.Load(), w.err)
		}
		finish(s, w, sc.settle)
		sc.settle()
		if !t.Failed() {
			expectFree(t, s, 2, 2, "after the waiter returned")
		}
	})
}

func (c *config) testNoStarvation(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		const size = 4
		s := sc.newSem(size)
		ctx, stop := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		// Staggered cyclers: at every moment some permit is held, so an
		// implementation that waits for all permits to be free at once
		// starves the large request.
		for i := range size {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(i) * c.tick / size)
				for ctx.Err() == nil {
					if s.Acquire(ctx, 1) != nil {
						return
					}
					time.Sleep(c.tick)
					s.Release(1)
				}
			}()
		}
		c.sleep(2)
		large := sc.goAcquire(context.Background(), s, size)
		var waited int
		for waited = 0; waited < 100 && !large.done.Load(); waited++ {
			c.sleep(1)
		}
		if !large.done.Load() {
			t.Errorf("a waiting Acquire(%d) was not served within %d hold times while Acquire(1) callers kept cycling", size, waited)
		}
		stop()
		wg.Wait()
		finish(s, large, sc.settle)
		sc.settle()
		expectFree(t, s, size, size, "after the cyclers stopped")
	})
}

func (c *config) testStress(t *testing.T) {
	const size = 4
	background := func(*rand.Rand) (context.Context, context.CancelFunc) {
		return context.Background(), func() {}
	}
	t.Run("Hammer", func(t *testing.T) {
		s := c.newOrFail(t, size)
		c.hammer(t, s, size, background)
		expectFree(t, s, size, size, "after the hammer")
	})
	t.Run("RandomTimeouts", func(t *testing.T) {
		s := c.newOrFail(t, size)
		c.hammer(t, s, size, c.shortTimeout)
		expectFree(t, s, size, size, "after the hammer with timeouts")
	})
	t.Run("Goroutines", func(t *testing.T) {
		if c.realTime() {
			t.Skip("a distributed client keeps goroutines of its own; check leaks with goleak in TestMain")
		}
		before := runtime.NumGoroutine()
		s := c.newOrFail(t, size)
		c.hammer(t, s, size, c.shortTimeout)
		// Goroutines that have returned may take a moment to exit; a leaked
		// one never does.
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			runtime.Gosched()
		}
		if after := runtime.NumGoroutine(); after > before {
			t.Errorf("%d goroutines before the hammer, %d after all its calls returned; the implementation leaks goroutines", before, after)
		}
	})
}

// shortTimeout makes a context that expires soon, often while its Acquire
// waits.
func (c *config) shortTimeout(r *rand.Rand) (context.Context, context.CancelFunc) {
	limit := c.tick / 100
	if c.realTime() {
		limit = c.tick
	}
	return context.WithTimeout(context.Background(), time.Duration(r.Int64N(int64(limit))))
}

// stressLimit bounds a stress check in time: a correct implementation
// finishes in well under a second.
const stressLimit = time.Minute

// hammer runs goroutines that mix Acquire and TryAcquire of weights 0..size
// and checks that the permits held never exceed size. The count is raised
// after a grant and lowered before a release, so it never exceeds the true
// number held by a correct implementation.
func (c *config) hammer(t *testing.T, s sem.Semaphore, size int64, ctxFor func(*rand.Rand) (context.Context, context.CancelFunc)) {
	t.Helper()
	var held atomic.Int64
	var wg sync.WaitGroup
	var problems sync.Map
	for g := range c.goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range c.ops {
				n := r.Int64N(size + 1)
				if r.IntN(4) == 0 {
					if !s.TryAcquire(n) {
						continue
					}
				} else {
					ctx, cancel := ctxFor(r)
					err := s.Acquire(ctx, n)
					cancel()
					if err != nil {
						if !errors.Is(err, context.DeadlineExceeded) {
							problems.Store(fmt.Sprintf("Acquire(%d) = %v; want nil or context.DeadlineExceeded", n, err), true)
						}
						continue
					}
				}
				if h := held.Add(n); h > size {
					problems.Store(fmt.Sprintf("%d permits held at once on a semaphore of size %d", h, size), true)
				}
				if r.IntN(2) == 0 {
					runtime.Gosched()
				}
				held.Add(-n)
				s.Release(n)
			}
		}()
	}
	finished := make(chan struct{})
	go func() {
		wg.Wait()
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(stressLimit):
		t.Fatalf("%d goroutines doing %d operations each had not finished after %v: a lost wake-up or a deadlock",
			c.goroutines, c.ops, stressLimit)
	}
	problems.Range(func(k, _ any) bool {
		t.Error(k)
		return true
	})
}
