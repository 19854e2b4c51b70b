package semtest

import (
	"testing"

	"github.com/semacat/sem"
)

// implements records which optional interfaces of package sem the
// implementation offers, read off a semaphore its constructor built.
type implements struct {
	resizer, closer, observer bool
}

func implementsOf(s sem.Semaphore) implements {
	_, resizer := s.(sem.Resizer)
	_, closer := s.(sem.Closer)
	_, observer := s.(sem.Observer)
	return implements{resizer: resizer, closer: closer, observer: observer}
}

// row is one check of an optional capability.
type row struct {
	name  string
	check func(t *testing.T)
}

// optionalRows runs each row as its own subtest, or skips every one of them
// with the reason missing when the capability is absent.
func optionalRows(t *testing.T, present bool, missing string, rows []row) {
	for _, r := range rows {
		run(t, r.name, func(t *testing.T) {
			if !present {
				t.Skip(missing)
			}
			r.check(t)
		})
	}
}

// requires skips a row that also needs a capability its family does not.
func requires(t *testing.T, present bool, missing string) {
	t.Helper()
	if !present {
		t.Skip(missing)
	}
}

// resize sets the size of the scene's semaphore, turning a panic into the
// end of the check.
func (sc *scene) resize(size int64) {
	sc.t.Helper()
	if msg, ok := panics(func() { sc.s.(sem.Resizer).Resize(size) }); ok {
		sc.t.Fatalf("Resize(%d) panicked: %s", size, msg)
	}
	sc.size = size
}

// shutdown closes the scene's semaphore; the scene then no longer expects
// its permits to be free at the end. A local semaphore's Close must return
// nil.
func (sc *scene) shutdown() {
	sc.t.Helper()
	sc.closed = true
	if err := sc.s.(sem.Closer).Close(); err != nil && !sc.c.realTime() {
		sc.t.Errorf("Close() = %v; a local semaphore's Close returns nil", err)
	}
}

// newAvailable builds the semaphore under test with NewAvailable.
func (sc *scene) newAvailable(size, available int64) sem.Semaphore {
	sc.t.Helper()
	sc.s, sc.size = sc.c.newAvailableOrFail(sc.t, size, available), size
	return sc.s
}

// newAvailableOrFail calls NewAvailable, turning a panic into a test
// failure.
func (c *config) newAvailableOrFail(t *testing.T, size, available int64) sem.Semaphore {
	t.Helper()
	var s sem.Semaphore
	if msg, ok := panics(func() { s = c.newAvailable(size, available) }); ok {
		t.Fatalf("NewAvailable(%d, %d) panicked: %v", size, available, msg)
	}
	if s == nil {
		t.Fatalf("NewAvailable(%d, %d) returned nil", size, available)
	}
	return s
}
