// Package starter is the skeleton for the exercise "implement your own
// semaphore" in docs/exercises.md. Fill in each method until
//
//	SEMACAT_EXERCISE=1 go test ./docs/exercises/starter/
//
// passes. Without SEMACAT_EXERCISE the conformance test is skipped, so the
// unfinished skeleton keeps `make test` green.
package starter

import (
	"context"
)

// Semaphore is your semaphore. Choose its fields: a mutex and a counter, a
// channel, an atomic word, a queue of waiters...
type Semaphore struct {
	// TODO: your fields.
}

// New returns a semaphore with size permits, all free. It must panic if size
// is less than 1, with a message containing the size.
func New(size int64) *Semaphore {
	panic("TODO: New")
}

// Acquire takes n permits, blocking until they are free or ctx is done. Read
// the contract in the documentation of package sem (sem.go) first: it says
// what to do for n == 0, n > size, a ctx already done, and a ctx done while
// waiting.
func (s *Semaphore) Acquire(ctx context.Context, n int64) error {
	panic("TODO: Acquire")
}

// TryAcquire takes n permits only if it can at once, and reports whether it
// did. It takes all n or none.
func (s *Semaphore) TryAcquire(n int64) bool {
	panic("TODO: TryAcquire")
}

// Release gives back n permits. It must panic with a message containing
// "released more than held" if that is more than are held, before changing
// anything.
func (s *Semaphore) Release(n int64) {
	panic("TODO: Release")
}
