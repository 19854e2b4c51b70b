package acquiretest

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/semacat/sem"
)

// CheckCancelBeforeGrantPassesOn checks the scenario of go.dev/issue/63615
// with a waiter behind, in a synctest bubble, on a semaphore built by
// newSem: with 1 of 2 permits held, an Acquire(2) waits and an Acquire(1)
// arrives after it (and is served at once where newcomers may barge); the
// Acquire(2) is canceled, and only then is the held permit released. The
// cancellation came first, so it wins, and the permits go to the waiter
// behind it, leaving 1 free. semtest's Cancel/BeforeGrant row checks the
// same race with nobody behind.
func CheckCancelBeforeGrantPassesOn(t *testing.T, newSem func(size int64) sem.Semaphore) {
	synctest.Test(t, func(t *testing.T) {
		s := newSem(2)
		if !s.TryAcquire(1) {
			t.Fatal("TryAcquire(1) on a fresh semaphore of size 2 failed")
		}
		w := Go(s, 2)
		synctest.Wait()
		behind := Go(s, 1)
		synctest.Wait()
		w.Cancel()
		s.Release(1)
		synctest.Wait()
		if !w.Returned() || !errors.Is(w.Err, context.Canceled) {
			t.Fatalf("Acquire(2), canceled before the Release that freed its permits: returned %v, err %v; want context.Canceled", w.Returned(), w.Err)
		}
		if !behind.Served() {
			t.Fatalf("the Acquire(1) behind the canceled Acquire(2) was not served: returned %v, err %v", behind.Returned(), behind.Err)
		}
		if s.TryAcquire(2) {
			t.Fatal("TryAcquire(2) succeeded with the Acquire(1) behind holding its permit; want 1 free")
		}
		if !s.TryAcquire(1) {
			t.Fatal("TryAcquire(1) failed with only the Acquire(1) behind holding a permit: the canceled Acquire(2) kept permits")
		}
		s.Release(2) // the probe's and the one behind's
		behind.Cancel()
	})
}
