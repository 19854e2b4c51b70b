package mysem

import (
	"context"
	"fmt"

	"github.com/semacat/sem"
)

// The argument checks, with the messages every semacat strategy gives for
// bad input (a panic naming the package, the call and the value; an error
// wrapping sem.ErrExceedsSize), written out here so that the solution
// builds in a module of its own, with no package but the public ones of
// github.com/semacat/sem.

// pkg names this package in its panics and errors.
const pkg = "mysem"

// panicIfNegative panics if the weight n passed to method is negative.
func panicIfNegative(method string, n int64) {
	if n < 0 {
		panic(fmt.Sprintf("%s: %s(%d): negative weight", pkg, method, n))
	}
}

// errAcquire is what Acquire(ctx, n) on a semaphore of size permits
// returns before it waits: an error wrapping sem.ErrExceedsSize if n can
// never fit, else ctx.Err(). It panics if n is negative.
func errAcquire(ctx context.Context, n, size int64) error {
	panicIfNegative("Acquire", n)
	if n > size {
		return fmt.Errorf("%s: Acquire(%d) on size %d: %w", pkg, n, size, sem.ErrExceedsSize)
	}
	return ctx.Err()
}

// panicOverRelease panics for a Release(n) with only held permits held.
func panicOverRelease(n, held int64) {
	panic(fmt.Sprintf("%s: Release(%d): released more than held (%d held)", pkg, n, held))
}
