package etcdsem

import (
	"fmt"

	"github.com/semacat/sem"
)

// The argument checks, with the messages every semacat strategy gives for
// the same bad input. Each check is a comparison inlined into its caller;
// the formatting and the panic are called only on the error path.

// checkSize panics unless size, the argument of New, is at least 1.
func checkSize(size int64) {
	if size < 1 {
		badSize(size)
	}
}

// checkWeight panics if n, the argument of method, is negative.
func checkWeight(method string, n int64) {
	if n < 0 {
		negativeWeight(method, n)
	}
}

// exceedsSize is the error of Acquire(n) when n is more than the size.
func exceedsSize(n, size int64) error {
	return fmt.Errorf("%s: Acquire(%d) on size %d: %w", pkg, n, size, sem.ErrExceedsSize)
}

// overRelease panics because Release(n) would give back more than the held
// permits. Call it before changing any state.
//
//go:noinline
func overRelease(n, held int64) {
	panic(fmt.Sprintf("%s: Release(%d): released more than held (%d held)", pkg, n, held))
}

//go:noinline
func badSize(size int64) {
	panic(fmt.Sprintf("%s: New(%d): size must be at least 1", pkg, size))
}

//go:noinline
func negativeWeight(method string, n int64) {
	panic(fmt.Sprintf("%s: %s(%d): negative weight", pkg, method, n))
}

// checkResize panics unless size, the argument of Resize, is at least 1.
func checkResize(size int64) {
	if size < 1 {
		badResize(size)
	}
}

//go:noinline
func badResize(size int64) {
	panic(fmt.Sprintf("%s: Resize(%d): size must be at least 1", pkg, size))
}

//go:noinline
func emptyName() {
	panic(fmt.Sprintf("%s: New(%q): the semaphore name must not be empty", pkg, ""))
}

//go:noinline
func nilClient(call string) {
	panic(fmt.Sprintf("%s: %s: the *clientv3.Client is nil", pkg, call))
}
