// Package check holds the argument checks and messages that every semacat
// strategy shares, so that bad input gets the same answer everywhere.
//
// Each check is a cheap comparison that the compiler inlines into the caller's
// fast path; the formatting and the panic live in separate functions that are
// only called on the error path.
package check

import (
	"fmt"
	"math"

	"github.com/semacat/sem"
)

// Size panics unless size is at least 1, the argument of New. pkg names the
// calling package.
func Size(pkg string, size int64) {
	ConstructorSize(pkg, "New", size)
}

// ConstructorSize is Size for a constructor of another name, ctor.
func ConstructorSize(pkg, ctor string, size int64) {
	if size < 1 {
		badSize(pkg, ctor, size)
	}
}

// Available panics unless size is at least 1 and 0 <= available <= size,
// the arguments of a NewAvailable constructor; ctor names it.
func Available(pkg, ctor string, size, available int64) {
	AvailableAtMost(pkg, ctor, size, available, math.MaxInt64)
}

// AvailableAtMost is Available for a strategy whose state word bounds its
// size: it also panics if size is more than max.
func AvailableAtMost(pkg, ctor string, size, available, max int64) {
	if size < 1 || size > max || available < 0 || available > size {
		badAvailable(pkg, ctor, size, available, max)
	}
}

// Resize panics unless size is at least 1, the argument of Resize.
func Resize(pkg string, size int64) {
	if size < 1 {
		badResize(pkg, size)
	}
}

// SizeAtMost panics unless size is at most max, for a strategy whose state
// word bounds its size. method names the caller: New or Resize.
func SizeAtMost(pkg, method string, size, max int64) {
	if size > max {
		tooLarge(pkg, method, size, max)
	}
}

// Weight panics if n is negative. pkg and method name the caller.
func Weight(pkg, method string, n int64) {
	if n < 0 {
		negativeWeight(pkg, method, n)
	}
}

// ExceedsSize returns the error Acquire(n) reports when n > size.
func ExceedsSize(pkg string, n, size int64) error {
	return fmt.Errorf("%s: Acquire(%d) can never succeed on a semaphore of size %d; ask for at most %d permits: %w",
		pkg, n, size, size, sem.ErrExceedsSize)
}

// Closed returns the error Acquire(n) reports on a closed semaphore.
func Closed(pkg string, n int64) error {
	return fmt.Errorf("%s: Acquire(%d): the semaphore was closed; no permit will be granted: %w",
		pkg, n, sem.ErrClosed)
}

// OverRelease panics because Release(n) would give back more permits than the
// held ones. Call it before changing any state.
//
//go:noinline
func OverRelease(pkg string, n, held int64) {
	panic(fmt.Sprintf("%s: Release(%d): released more than held (%d held)", pkg, n, held))
}

// OverUnlock panics because Unlock was called with no permit held.
//
//go:noinline
func OverUnlock(pkg string) {
	panic(fmt.Sprintf("%s: Unlock: released more than held (no permit held)", pkg))
}

//go:noinline
func badSize(pkg, ctor string, size int64) {
	panic(fmt.Sprintf("%s: %s(%d): size must be at least 1", pkg, ctor, size))
}

//go:noinline
func tooLarge(pkg, method string, size, max int64) {
	panic(fmt.Sprintf("%s: %s(%d): size must be at most %d", pkg, method, size, max))
}

//go:noinline
func negativeWeight(pkg, method string, n int64) {
	panic(fmt.Sprintf("%s: %s(%d): negative weight; the number of permits must be at least 0", pkg, method, n))
}

//go:noinline
func badAvailable(pkg, ctor string, size, available, max int64) {
	if size < 1 {
		panic(fmt.Sprintf("%s: %s(%d, %d): size must be at least 1", pkg, ctor, size, available))
	}
	if size > max {
		panic(fmt.Sprintf("%s: %s(%d, %d): size must be at most %d", pkg, ctor, size, available, max))
	}
	panic(fmt.Sprintf("%s: %s(%d, %d): available must be between 0 and the size", pkg, ctor, size, available))
}

//go:noinline
func badResize(pkg string, size int64) {
	panic(fmt.Sprintf("%s: Resize(%d): size must be at least 1", pkg, size))
}
