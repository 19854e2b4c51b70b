package semtest

import (
	"testing"
)

// snapshotter is the optional monitoring interface of a semaphore.
type snapshotter interface {
	Size() int64
	Available() int64
}

// testSnapshot checks Size and Available, when the semaphore offers them:
// Size is the size it was built with; Available is size minus the permits
// held while nobody waits, and between 0 and that while somebody does (a
// waiter may have set permits aside).
func (c *config) testSnapshot(t *testing.T) {
	run(t, "SizeAvailable", func(t *testing.T) {
		c.bubble(t, func(t *testing.T, sc *scene) {
			const size = 4
			snap, ok := sc.newSem(size).(snapshotter)
			if !ok {
				t.Skip("the semaphore has no Size() int64 and Available() int64 methods")
			}
			s := sc.s
			expect := func(held int64, when string) {
				t.Helper()
				if got := snap.Size(); got != size {
					t.Errorf("%s: Size() = %d; want %d", when, got, size)
				}
				if got := snap.Available(); got != size-held {
					t.Errorf("%s: Available() = %d with %d of %d held and nobody waiting; want %d", when, got, held, size, size-held)
				}
			}
			expect(0, "fresh")
			if !s.TryAcquire(3) {
				t.Fatal("TryAcquire(3) failed on a fresh semaphore of size 4")
			}
			expect(3, "after TryAcquire(3)")
			w := sc.arrive(2)
			if got := snap.Available(); got < 0 || got > 1 {
				t.Errorf("Available() = %d with 3 of 4 held and an Acquire(2) waiting; want 0 or 1", got)
			}
			s.Release(3)
			sc.settle()
			if !w.served() {
				t.Fatalf("the waiting Acquire(2) was not served once every permit was free: done %v, err %v", w.done.Load(), w.err)
			}
			expect(2, "with the waiter served (2 held)")
			w.release(s)
			expect(0, "after every permit was given back")
		})
	})
}
