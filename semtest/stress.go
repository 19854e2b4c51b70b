package semtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/semacat/sem"
)

// testStress checks, with real parallelism and bounded in count and time,
// that no more than size permits are ever held and that nothing leaks.
func (c *config) testStress(t *testing.T) {
	const size = 4
	background := func(*rand.Rand) (context.Context, context.CancelFunc) {
		return context.Background(), func() {}
	}
	run(t, "Hammer", func(t *testing.T) {
		s := c.newOrFail(t, size)
		c.hammer(t, s, size, background)
		expectFree(t, s, size, size, "after the hammer")
	})
	run(t, "RandomTimeouts", func(t *testing.T) {
		s := c.newOrFail(t, size)
		c.hammer(t, s, size, c.shortTimeout)
		expectFree(t, s, size, size, "after the hammer with timeouts")
	})
	run(t, "Goroutines", func(t *testing.T) {
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

// returnedAll returns a channel that is closed once the goroutines of wg
// have all returned.
func returnedAll(wg *sync.WaitGroup) <-chan struct{} {
	finished := make(chan struct{})
	go func() {
		wg.Wait()
		close(finished)
	}()
	return finished
}

// waitUnlessStalled waits until finished is closed, and returns "", or
// gives up and says why: stressLimit passed, or progress, a count of
// returned calls, stayed the same for the stall limit.
func (c *config) waitUnlessStalled(finished <-chan struct{}, progress *atomic.Int64) (stuck string) {
	limit := time.After(stressLimit)
	check := time.NewTicker(c.stallLimit)
	defer check.Stop()
	last := progress.Load()
	for {
		select {
		case <-finished:
			return ""
		case <-limit:
			return fmt.Sprintf("had not finished after %v", stressLimit)
		case <-check.C:
			now := progress.Load()
			if now == last {
				return fmt.Sprintf("made no progress for %v (%d calls had returned)", c.stallLimit, now)
			}
			last = now
		}
	}
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

// DefaultStallLimit ends a stress check sooner when no call has returned
// for that long, unless WithStallLimit sets another: the goroutines are
// stuck (a lost wake-up, a corrupted count), and waiting out the check's
// one-minute bound would only delay the report.
const DefaultStallLimit = 5 * time.Second

// hammer runs goroutines that mix Acquire and TryAcquire of weights 0..size
// and checks that the permits held never exceed size. The count is raised
// after a grant and lowered before a release, so it never exceeds the true
// number held by a correct implementation.
func (c *config) hammer(t *testing.T, s sem.Semaphore, size int64, ctxFor func(*rand.Rand) (context.Context, context.CancelFunc)) {
	t.Helper()
	var held, returned atomic.Int64
	var wg sync.WaitGroup
	var problems sync.Map
	for g := range c.goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer recovered(func(msg string) {
				problems.Store("a call on the semaphore panicked: "+msg, true)
			})
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
				returned.Add(1)
			}
		}()
	}
	if stuck := c.waitUnlessStalled(returnedAll(&wg), &returned); stuck != "" {
		t.Fatalf("%d goroutines doing %d operations each %s: a lost wake-up or a deadlock", c.goroutines, c.ops, stuck)
	}
	problems.Range(func(k, _ any) bool {
		t.Error(k)
		return true
	})
}
