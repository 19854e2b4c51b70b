package acquiretest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/semacat/sem"
)

// CheckBadInputMessages checks, on semaphores built by newSem, the
// constructor named ctor, that the strategy's bad input gets internal/check's
// words with its package name, pkg, and the right values: a size of 0,
// negative weights, over-releases that
// name what is held and change nothing, and an Acquire larger than the size.
// semtest's BadInput rows ask only that the messages name the package, the
// method and the value; this pins them whole.
func CheckBadInputMessages(t *testing.T, pkg, ctor string, newSem func(size int64) sem.Semaphore) {
	t.Helper()
	expectPanic(t, pkg+": "+ctor+"(0): size must be at least 1", func() { newSem(0) })
	s := newSem(2)
	const negative = "negative weight"
	expectPanic(t, pkg+": Acquire(-2): "+negative, func() { _ = s.Acquire(context.Background(), -2) })
	expectPanic(t, pkg+": TryAcquire(-1): "+negative, func() { s.TryAcquire(-1) })
	expectPanic(t, pkg+": Release(-3): "+negative, func() { s.Release(-3) })
	expectPanic(t, pkg+": Release(1): released more than held (0 held)", func() { s.Release(1) })
	if !s.TryAcquire(1) {
		t.Fatal("TryAcquire(1) on a fresh semaphore of size 2 failed")
	}
	expectPanic(t, pkg+": Release(2): released more than held (1 held)", func() { s.Release(2) })
	expectFree(t, s, 2, 1, "after a refused Release(2) with 1 of 2 held")
	s.Release(1)

	err := s.Acquire(context.Background(), 3)
	want := fmt.Sprintf("%s: Acquire(3) on size 2: %v", pkg, sem.ErrExceedsSize)
	if !errors.Is(err, sem.ErrExceedsSize) || err.Error() != want {
		t.Errorf("Acquire(3) on a semaphore of size 2 = %v; want %q, wrapping sem.ErrExceedsSize", err, want)
	}
	if s.TryAcquire(3) {
		t.Error("TryAcquire(3) on a semaphore of size 2 succeeded")
	}
	expectFree(t, s, 2, 2, "after the refused requests, with nothing held")
}

// expectPanic fails t unless f panics with the message want.
func expectPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		if got := recover(); got != want {
			t.Errorf("panicked with %v; want %q", got, want)
		}
	}()
	f()
}

// expectFree fails t unless exactly free of s's size permits are free; it
// gives back what its probes take.
func expectFree(t *testing.T, s sem.Semaphore, size, free int64, when string) {
	t.Helper()
	if free < size && s.TryAcquire(free+1) {
		s.Release(free + 1)
		t.Errorf("%s: TryAcquire(%d) succeeded; want %d free", when, free+1, free)
	}
	if !s.TryAcquire(free) {
		t.Errorf("%s: TryAcquire(%d) failed; want %d free", when, free, free)
		return
	}
	s.Release(free)
}
