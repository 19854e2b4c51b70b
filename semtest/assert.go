package semtest

import (
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/semacat/sem"
)

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

// newHeld builds a semaphore outside any scene and takes held of its
// permits.
func (c *config) newHeld(t *testing.T, size, held int64) sem.Semaphore {
	t.Helper()
	s := c.newOrFail(t, size)
	take(t, s, size, held)
	return s
}

// take acquires held permits of a fresh semaphore, or ends the check.
func take(t *testing.T, s sem.Semaphore, size, held int64) {
	t.Helper()
	if !s.TryAcquire(held) {
		t.Fatalf("TryAcquire(%d) failed on a fresh semaphore of size %d", held, size)
	}
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

// recovered, deferred, passes what the deferring function panicked with,
// if it did, to report, and ends the panic: a goroutine of a check that
// calls the implementation reports a panic instead of ending the test
// binary.
func recovered(report func(msg string)) {
	if p := recover(); p != nil {
		report(fmt.Sprint(p))
	}
}

// run is t.Run for the suite's checks: a panic that escapes a check (the
// implementation panicked where the check did not expect it) fails that
// check instead of ending the test binary.
func run(t *testing.T, name string, check func(t *testing.T)) bool {
	t.Helper()
	return t.Run(name, func(t *testing.T) {
		defer recovered(func(msg string) {
			t.Errorf("a call on the semaphore panicked: %s\n%s", msg, debug.Stack())
		})
		check(t)
	})
}

// expectPanic fails t unless f panics with a message containing every one of
// the given words. An empty word is skipped.
func expectPanic(t *testing.T, call string, f func(), words ...string) {
	t.Helper()
	words = slices.DeleteFunc(words, func(w string) bool { return w == "" })
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

// overReleaseWords are the words an over-release panic must contain.
func (c *config) overReleaseWords() []string {
	return []string{"released more than held", c.pkg}
}

// release gives back n permits that the test holds, turning a panic (an
// implementation whose count is corrupted) into a test failure, so that the
// check goes on and names what broke.
func release(t *testing.T, s sem.Semaphore, n int64, when string) {
	t.Helper()
	if msg, ok := panics(func() { s.Release(n) }); ok {
		t.Errorf("%s: Release(%d) of permits the test holds panicked: %s", when, n, msg)
	}
}

// expectFree fails t unless exactly free permits are available right now. It
// probes with TryAcquire and leaves the semaphore as it found it. Only call
// it while no Acquire waits: a semaphore that does not barge rightly refuses
// the probe then.
func expectFree(t *testing.T, s sem.Semaphore, size, free int64, when string) {
	t.Helper()
	if free < size && s.TryAcquire(free+1) {
		release(t, s, free+1, when+", giving back a probe")
		t.Errorf("%s: TryAcquire(%d) succeeded; want only %d permits free", when, free+1, free)
	}
	if free > 0 {
		if !s.TryAcquire(free) {
			t.Errorf("%s: TryAcquire(%d) failed; want %d permits free", when, free, free)
			return
		}
		release(t, s, free, when+", giving back a probe")
	}
}

// expectTryAcquireFails fails t if TryAcquire(n) succeeds now, and gives
// back what it took.
func expectTryAcquireFails(t *testing.T, s sem.Semaphore, n int64, when string) {
	t.Helper()
	if s.TryAcquire(n) {
		release(t, s, n, when+", giving back a TryAcquire that should have failed")
		t.Errorf("%s: TryAcquire(%d) succeeded", when, n)
	}
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
