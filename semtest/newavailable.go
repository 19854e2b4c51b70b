package semtest

import (
	"fmt"
	"testing"
)

// testNewAvailable checks the NewAvailable constructor given with
// [WithNewAvailable]: the semaphore starts as if size-available permits were
// held, and Release may give those back too, and no more.
func (c *config) testNewAvailable(t *testing.T) {
	optionalRows(t, c.newAvailable != nil, "no NewAvailable constructor given (see WithNewAvailable)", []row{
		{"StartsWithAvailable", c.testStartsWithAvailable},
		{"Signal", c.testSignal},
		{"OverRelease", c.testNewAvailableOverRelease},
		{"BadInput", c.testNewAvailableBadInput},
	})
}

// testStartsWithAvailable: exactly available permits are free at first, and
// the others can be released.
func (c *config) testStartsWithAvailable(t *testing.T) {
	for _, available := range []int64{1, 4} {
		s := c.newAvailableOrFail(t, 4, available)
		call := fmt.Sprintf("NewAvailable(4, %d)", available)
		expectFree(t, s, 4, available, call)
		if snap, ok := s.(snapshotter); ok {
			if size, free := snap.Size(), snap.Available(); size != 4 || free != available {
				t.Errorf("%s: Size(), Available() = %d, %d; want 4, %d", call, size, free, available)
			}
		}
		if unavailable := 4 - available; unavailable > 0 {
			release(t, s, unavailable, fmt.Sprintf("%s: giving back the %d it starts without", call, unavailable))
		}
		expectFree(t, s, 4, 4, call+", after giving back the permits it starts without")
	}
}

// testSignal: NewAvailable(1, 0) is a signalling semaphore: Acquire waits
// until another goroutine calls Release(1).
func (c *config) testSignal(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newAvailable(1, 0)
		expectTryAcquireFails(t, s, 1, "NewAvailable(1, 0), before any Release")
		w := sc.arrive(1)
		if w.done.Load() {
			t.Fatalf("Acquire(1) on NewAvailable(1, 0) returned %v before any Release; want it to wait for the signal", w.err)
		}
		release(t, s, 1, "signalling NewAvailable(1, 0) with Release(1)")
		sc.settle()
		if !w.served() {
			t.Errorf("Acquire(1) on NewAvailable(1, 0) was not served after Release(1) (done %v, err %v)", w.done.Load(), w.err)
		}
	})
}

// testNewAvailableOverRelease: Release may give back the permits the
// semaphore started without plus those acquired, and panics beyond.
func (c *config) testNewAvailableOverRelease(t *testing.T) {
	words := c.overReleaseWords()
	s := c.newAvailableOrFail(t, 4, 1)
	if !s.TryAcquire(1) {
		t.Fatal("TryAcquire(1) on NewAvailable(4, 1) failed")
	}
	expectPanic(t, "Release(5) on NewAvailable(4, 1) holding the 1 acquired", func() { s.Release(5) }, words...)
	release(t, s, 4, "giving back the 3 NewAvailable(4, 1) starts without and the 1 acquired")
	expectPanic(t, "Release(1) on NewAvailable(4, 1) after all 4 came back", func() { s.Release(1) }, words...)
	expectFree(t, s, 4, 4, "after the panics")
}

// testNewAvailableBadInput: available below 0 or above the size, and a size
// below 1, panic naming the package, the constructor and the value. The
// constructor's name need only end in "Available": a package may offer
// several, such as condsem's NewAvailable and NewFairAvailable.
func (c *config) testNewAvailableBadInput(t *testing.T) {
	for _, tc := range []struct{ size, available, bad int64 }{
		{4, -1, -1}, {4, 5, 5}, {4, -1 << 63, -1 << 63}, {0, 0, 0}, {-1, 0, -1},
	} {
		call := fmt.Sprintf("NewAvailable(%d, %d)", tc.size, tc.available)
		expectPanic(t, call, func() { c.newAvailable(tc.size, tc.available) }, "Available(", fmt.Sprint(tc.bad), c.pkg)
	}
}
