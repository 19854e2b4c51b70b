package semtest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// testOverRelease checks that releasing more than is held panics with
// "released more than held" before it changes anything: on a quiet
// semaphore, while a waiter is queued or has gathered part of its permits,
// and when two releases race.
func (c *config) testOverRelease(t *testing.T) {
	words := c.overReleaseWords()
	run(t, "Fresh", func(t *testing.T) {
		s := c.newOrFail(t, 2)
		expectPanic(t, "Release(1) on a fresh semaphore", func() { s.Release(1) }, words...)
		expectFree(t, s, 2, 2, "after the panic")
	})
	run(t, "BeyondHeld", func(t *testing.T) {
		s := c.newHeld(t, 4, 2)
		expectPanic(t, "Release(3) holding 2", func() { s.Release(3) }, words...)
		expectFree(t, s, 4, 2, "after the panic (2 still held)")
		release(t, s, 2, "releasing the 2 held after the panic")
		expectFree(t, s, 4, 4, "after releasing the 2 held")
	})
	// While a waiter wants more than is free: queued (all 3 held, an
	// Acquire(1) waiting), and partly served (2 of 3 held, an Acquire(3)
	// waiting: an implementation that hands out permits one at a time has
	// given the waiter the free one, which is not the holder's to release).
	for _, tc := range []struct {
		name                 string
		held, wants, release int64
	}{
		{"WaiterQueued", 3, 1, 4},
		{"WaiterPartlyServed", 2, 3, 3},
	} {
		run(t, tc.name, func(t *testing.T) {
			c.bubble(t, func(t *testing.T, sc *scene) {
				s := sc.newHeld(3, tc.held)
				w := sc.arrive(tc.wants)
				call := fmt.Sprintf("Release(%d) holding %d with an Acquire(%d) waiting", tc.release, tc.held, tc.wants)
				expectPanic(t, call, func() { s.Release(tc.release) }, words...)
				c.afterOverRelease(t, sc, w, tc.held)
			})
		})
	}
	run(t, "Concurrent", c.testConcurrentOverRelease)
}

// afterOverRelease checks the scene after a Release that panicked while the
// test held held permits and w waited for more than was free: w still waits,
// the holder's real release serves it, and nothing is admitted beyond size.
func (c *config) afterOverRelease(t *testing.T, sc *scene, w *waiter, held int64) {
	t.Helper()
	sc.settle()
	if w.done.Load() {
		t.Errorf("after the panicking over-release, the waiting Acquire(%d) returned %v; want it still waiting (the %d held are still held)", w.n, w.err, held)
	}
	release(t, sc.s, held, "the real release after the panic")
	sc.settle()
	if !w.served() {
		t.Errorf("after the %d held were released, the waiting Acquire(%d) was not served (done %v, err %v)", held, w.n, w.done.Load(), w.err)
		return
	}
	if free := sc.size - w.n; free >= 0 && sc.s.TryAcquire(free+1) {
		sc.s.Release(free + 1)
		t.Errorf("with the waiter holding %d of %d, TryAcquire(%d) succeeded: the semaphore admits more than its size after the over-release", w.n, sc.size, free+1)
	}
}

// testConcurrentOverRelease races two Release(2) calls while 3 permits are
// held on a semaphore of size 4: exactly one must panic, and the panicking
// one must not give anything back first. The window is narrow, so it runs
// many trials, bounded in count and in time, in real time.
func (c *config) testConcurrentOverRelease(t *testing.T) {
	const size = 4
	trials, limit := 10000, time.Second
	if c.realTime() {
		trials, limit = 20, 40*c.tick
	}
	words := c.overReleaseWords()
	s := c.newOrFail(t, size)
	deadline := time.Now().Add(limit)
	var done int
	for done = 0; done < trials && time.Now().Before(deadline) && !t.Failed(); done++ {
		if !s.TryAcquire(3) {
			t.Fatalf("trial %d: TryAcquire(3) failed on a semaphore of size %d with nothing held", done, size)
		}
		msgs := racingReleases(s, 2)
		var panicked []string
		for _, m := range msgs {
			if m != "" {
				panicked = append(panicked, m)
			}
		}
		if len(panicked) != 1 {
			t.Errorf("trial %d: two concurrent Release(2) with 3 of %d held: %d panicked (%q); want exactly one", done, size, len(panicked), panicked)
			break
		}
		for _, w := range words {
			if !strings.Contains(panicked[0], w) {
				t.Errorf("trial %d: the losing Release(2) panicked with %q; want the message to contain %q", done, panicked[0], w)
			}
		}
		expectFree(t, s, size, size-1, fmt.Sprintf("trial %d: after two concurrent Release(2) with 3 held, one of which panicked (1 still held)", done))
		release(t, s, 1, fmt.Sprintf("trial %d: releasing the last permit held", done))
	}
	t.Logf("%d trials of two racing over-releases", done)
}

// racingReleases lets two goroutines call s.Release(n) at once, from a
// start barrier, and returns their panic messages ("" for no panic).
func racingReleases(s interface{ Release(int64) }, n int64) [2]string {
	var msgs [2]string
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range msgs {
		wg.Go(func() {
			<-start
			msgs[i], _ = panics(func() { s.Release(n) })
		})
	}
	close(start)
	wg.Wait()
	return msgs
}
