// Package grant holds the rule every semacat strategy applies when a
// waiter's permits and the end of its context arrive together.
//
// A waiter parks on two events, its grant and ctx.Done(), and when both are
// ready by the time it runs, nothing tells which came first; a select picks
// either at random. The contract says a cancellation that comes before the
// grant wins (the fix of go.dev/issue/63615 in golang.org/x/sync), so a
// waiter that holds its permits looks at its context once more on the way
// out and, if it is done, gives the permits back. Only waiters pay for that
// look; the uncontended fast paths never call Keep.
package grant

import "context"

// Releaser gives permits back: every semacat semaphore is one.
type Releaser interface {
	Release(n int64)
}

// Keep ends an Acquire(ctx, n) that waited and now holds its n permits. If
// ctx is done by now, the cancellation may have come before the grant, and
// it wins: Keep gives the permits back through s.Release, which serves
// whoever may now proceed, and returns ctx.Err(). Otherwise it returns nil
// and the caller keeps them.
func Keep(ctx context.Context, s Releaser, n int64) error {
	select {
	case <-ctx.Done():
		s.Release(n)
		return ctx.Err()
	default:
		return nil
	}
}
