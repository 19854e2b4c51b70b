package semtest

import (
	"context"
	"errors"
	"testing"
)

// testZeroWeight checks that requests and releases of zero permits are
// no-ops that never block.
func (c *config) testZeroWeight(t *testing.T) {
	run(t, "AcquireWhenFull", func(t *testing.T) {
		c.bubble(t, func(t *testing.T, sc *scene) {
			s := sc.newHeld(2, 2)
			w := sc.arrive(0)
			if !w.done.Load() {
				t.Error("Acquire(ctx, 0) blocked on a full semaphore; want nil at once")
			} else if w.err != nil {
				t.Errorf("Acquire(ctx, 0) = %v; want nil", w.err)
			}
			s.Release(2)
		})
	})
	run(t, "AcquireDoneContext", func(t *testing.T) {
		s := c.newOrFail(t, 2)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := s.Acquire(ctx, 0); !errors.Is(err, context.Canceled) {
			t.Errorf("Acquire(canceled ctx, 0) = %v; want context.Canceled", err)
		}
	})
	run(t, "TryAcquire", func(t *testing.T) {
		s := c.newHeld(t, 2, 2)
		if !s.TryAcquire(0) {
			t.Error("TryAcquire(0) on a full semaphore = false; want true (a no-op)")
		}
		s.Release(2)
		expectFree(t, s, 2, 2, "after TryAcquire(0)")
	})
	run(t, "Release", func(t *testing.T) {
		s := c.newOrFail(t, 2)
		if msg, ok := panics(func() { s.Release(0) }); ok {
			t.Errorf("Release(0) with nothing held panicked: %s; want a no-op", msg)
		}
		expectFree(t, s, 2, 2, "after Release(0)")
	})
}
