// Package check holds the argument checks and messages that every semacat
// strategy shares, so that bad input gets the same answer everywhere.
//
// A strategy names itself once, as a constant of type Pkg, and calls the
// methods on it. The methods whose names begin with PanicIf panic on bad
// input and return otherwise; those beginning with Panic always panic; those
// beginning with Err return the error an Acquire reports. Every message
// starts with the package and the call, with its arguments, as in
// "weighted: Release(3): released more than held (2 held)".
//
// Each check is a cheap comparison that the compiler inlines into the caller's
// fast path; the formatting and the panic live in separate functions that are
// only called on the error path.
package check

import (
	"context"
	"fmt"
	"math"

	"github.com/semacat/sem"
)

// Pkg is the name of the calling package, the first word of its messages.
type Pkg string

// Unbounded is the max of a strategy whose size has no bound but the type's.
const Unbounded = math.MaxInt64

// PanicIfBadSize panics unless 1 <= size <= max, the argument of the method
// or constructor named method (New, NewFair, Resize).
func (p Pkg) PanicIfBadSize(method string, size, max int64) {
	if size < 1 || size > max {
		p.badSize(method, size, max)
	}
}

// PanicIfBadAvailable panics unless 1 <= size <= max and
// 0 <= available <= size, the arguments of the constructor named ctor
// (NewAvailable, NewFairAvailable).
func (p Pkg) PanicIfBadAvailable(ctor string, size, available, max int64) {
	if size < 1 || size > max || available < 0 || available > size {
		p.badAvailable(ctor, size, available, max)
	}
}

// PanicIfNegative panics if the weight n passed to method is negative.
func (p Pkg) PanicIfNegative(method string, n int64) {
	if n < 0 {
		p.negative(method, n)
	}
}

// ErrAcquire returns the error Acquire(ctx, n) on a semaphore of the given
// size reports before it looks at any permit: the error of ErrExceedsSize if
// n exceeds the size, else ctx.Err(). It panics if n is negative.
func (p Pkg) ErrAcquire(ctx context.Context, n, size int64) error {
	p.PanicIfNegative("Acquire", n)
	if n > size {
		return p.ErrExceedsSize(n, size)
	}
	return ctx.Err()
}

// ErrNow returns the error an Acquire(ctx, n) that has not yet taken its
// permits must return now, in this order: ctx.Err(), the closed error if
// closed, the error of ErrExceedsSize if n exceeds size; or nil.
func (p Pkg) ErrNow(ctx context.Context, n, size int64, closed bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if closed {
		return p.ErrClosed(n)
	}
	if n > size {
		return p.ErrExceedsSize(n, size)
	}
	return nil
}

// ErrExceedsSize returns the error Acquire(n) reports when n exceeds size.
func (p Pkg) ErrExceedsSize(n, size int64) error {
	return fmt.Errorf("%s: Acquire(%d) on size %d: %w", p, n, size, sem.ErrExceedsSize)
}

// ErrClosed returns the error Acquire(n) reports on a closed semaphore.
func (p Pkg) ErrClosed(n int64) error {
	return fmt.Errorf("%s: Acquire(%d): %w", p, n, sem.ErrClosed)
}

// PanicOverRelease panics because Release(n) would give back more permits
// than the held ones. Call it before changing any state.
//
//go:noinline
func (p Pkg) PanicOverRelease(n, held int64) {
	panic(fmt.Sprintf("%s: Release(%d): released more than held (%d held)", p, n, held))
}

// PanicOverUnlock panics because Unlock was called with no permit held.
//
//go:noinline
func (p Pkg) PanicOverUnlock() {
	panic(fmt.Sprintf("%s: Unlock: released more than held (0 held)", p))
}

//go:noinline
func (p Pkg) badSize(method string, size, max int64) {
	if size < 1 {
		panic(fmt.Sprintf("%s: %s(%d): size must be at least 1", p, method, size))
	}
	panic(fmt.Sprintf("%s: %s(%d): size must be at most %d", p, method, size, max))
}

//go:noinline
func (p Pkg) badAvailable(ctor string, size, available, max int64) {
	call := fmt.Sprintf("%s: %s(%d, %d)", p, ctor, size, available)
	switch {
	case size < 1:
		panic(call + ": size must be at least 1")
	case size > max:
		panic(fmt.Sprintf("%s: size must be at most %d", call, max))
	}
	panic(call + ": available must be between 0 and the size")
}

//go:noinline
func (p Pkg) negative(method string, n int64) {
	panic(fmt.Sprintf("%s: %s(%d): negative weight", p, method, n))
}
