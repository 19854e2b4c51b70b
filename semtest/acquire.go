package semtest

import (
	"context"
	"fmt"
	"testing"
)

// testAcquire checks the plain path: a granted request holds its permits,
// TryAcquire takes all or nothing, and Acquire waits when they are taken.
func (c *config) testAcquire(t *testing.T) {
	run(t, "HoldsPermits", func(t *testing.T) {
		s := c.newOrFail(t, 5)
		for _, n := range []int64{1, 2, 5} {
			if err := s.Acquire(context.Background(), n); err != nil {
				t.Fatalf("Acquire(%d) on a free semaphore of size 5: %v", n, err)
			}
			expectFree(t, s, 5, 5-n, fmt.Sprintf("after Acquire(%d)", n))
			s.Release(n)
		}
	})
	run(t, "TryAcquireAllOrNothing", func(t *testing.T) {
		s := c.newHeld(t, 4, 3)
		if s.TryAcquire(2) {
			t.Error("TryAcquire(2) succeeded with only 1 permit free")
			s.Release(2)
		}
		expectFree(t, s, 4, 1, "after a failed TryAcquire(2)")
		s.Release(3)
	})
	run(t, "BlocksWhenFull", func(t *testing.T) {
		c.bubble(t, func(t *testing.T, sc *scene) {
			s := sc.newHeld(2, 2)
			w := sc.arrive(1)
			if w.done.Load() {
				t.Errorf("Acquire(1) on a full semaphore returned %v without waiting; want it to block", w.err)
			}
			s.Release(1)
			sc.settle()
			if !w.done.Load() || w.err != nil {
				t.Errorf("after Release(1), the waiting Acquire(1) did not return nil (done %v, err %v)", w.done.Load(), w.err)
			}
			s.Release(1) // the test's other permit
		})
	})
}
