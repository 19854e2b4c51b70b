package redissem

import (
	"fmt"

	"github.com/semacat/sem"
)

// The argument checks: a programmer's error panics with a message naming the
// package, the method and the value; an impossible weight is an error
// wrapping sem.ErrExceedsSize.

func checkSize(size int64) {
	if size < 1 {
		panic(fmt.Sprintf("%s: New(%d): size must be at least 1", pkg, size))
	}
}

func checkWeight(method string, n int64) {
	if n < 0 {
		panic(fmt.Sprintf("%s: %s(%d): negative weight; the number of permits must be at least 0", pkg, method, n))
	}
}

func exceedsSize(n, size int64) error {
	return fmt.Errorf("%s: Acquire(%d) can never succeed on a semaphore of size %d; ask for at most %d permits: %w",
		pkg, n, size, size, sem.ErrExceedsSize)
}

func overRelease(n, held int64) {
	panic(fmt.Sprintf("%s: Release(%d): released more than held (%d held)", pkg, n, held))
}
