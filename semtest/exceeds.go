package semtest

import (
	"errors"
	"testing"

	"github.com/semacat/sem"
)

// testExceedsSize checks that a request larger than the semaphore fails at
// once with sem.ErrExceedsSize instead of waiting forever.
func (c *config) testExceedsSize(t *testing.T) {
	run(t, "Acquire", func(t *testing.T) {
		c.bubble(t, func(t *testing.T, sc *scene) {
			s := sc.newSem(3)
			for _, held := range []int64{0, 3} {
				if held > 0 && !s.TryAcquire(held) {
					t.Fatalf("TryAcquire(%d) failed on a fresh semaphore", held)
				}
				w := sc.arrive(4)
				if !w.done.Load() {
					t.Errorf("Acquire(4) on a semaphore of size 3 (holding %d) blocked; want an error at once", held)
				} else if !errors.Is(w.err, sem.ErrExceedsSize) {
					t.Errorf("Acquire(4) on a semaphore of size 3 = %v; want an error wrapping sem.ErrExceedsSize", w.err)
				}
				if held > 0 {
					s.Release(held)
					sc.settle()
				}
				sc.finishWaiter(w)
				if w.err == nil {
					t.Fatal("Acquire(4) on a semaphore of size 3 returned nil")
				}
				expectFree(t, s, 3, 3, "after Acquire(4)")
			}
		})
	})
	run(t, "TryAcquire", func(t *testing.T) {
		s := c.newOrFail(t, 3)
		if s.TryAcquire(4) {
			t.Fatal("TryAcquire(4) on a semaphore of size 3 succeeded")
		}
		expectFree(t, s, 3, 3, "after TryAcquire(4)")
	})
}
