package reftest

import (
	"context"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/check"
)

// pkg is the package name gather's panics give: "ref", as the reference
// semaphore's, so that the suite's tests name one package for both.
const pkg check.Pkg = "ref"

// NewGather returns a copy of chansem as it stood when the model was
// written (one buffered-channel slot per permit; a multi-permit Acquire
// gathers its permits one send at a time behind a gate), kept as a broken
// subject: while a request gathers, the slots it has gathered belong to
// nobody the caller knows of, so a TryAcquire can take a slot freed for the
// gatherer (barging between partial grants) and Release can give back more
// than callers hold without panicking. Chansem now counts the permits its
// callers hold instead, so it cannot stand in for this copy.
func NewGather(size int64) sem.Semaphore {
	pkg.PanicIfBadSize("New", size, check.Unbounded)
	return &gather{
		slots: make(chan struct{}, size),
		gate:  make(chan struct{}, 1),
		size:  size,
	}
}

type gather struct {
	slots chan struct{} // one value per held permit
	gate  chan struct{} // held by the one multi-permit request gathering permits
	size  int64
}

// Size returns the total number of permits.
func (s *gather) Size() int64 { return s.size }

// Available returns the number of permits free at this instant. It is a
// snapshot for monitoring and teaching, stale as soon as it returns.
func (s *gather) Available() int64 { return s.size - int64(len(s.slots)) }

// Acquire takes n permits, blocking until they are available or ctx is done.
// Single-permit requests are served in arrival order.
//
// On success it returns nil. If ctx is already done it returns ctx.Err()
// without acquiring, even when permits are free; if ctx is done while it
// waits, it gives back any permits it gathered and returns ctx.Err(). If n
// exceeds the size it returns at once an error wrapping sem.ErrExceedsSize.
// Acquire(ctx, 0) returns ctx.Err() without blocking. It panics if n < 0.
func (s *gather) Acquire(ctx context.Context, n int64) error {
	if n == 1 {
		// The common case first: one permit is never a bad weight and
		// always fits, so it needs only the context check and a send.
		if err := ctx.Err(); err != nil {
			return err
		}
		select {
		case s.slots <- struct{}{}:
			return nil
		default:
			return s.waitOne(ctx)
		}
	}
	if err := pkg.ErrAcquire(ctx, n, s.size); err != nil || n == 0 {
		return err
	}
	return s.acquireMany(ctx, n)
}

// waitOne waits for a single permit or for ctx to be done.
func (s *gather) waitOne(ctx context.Context) error {
	done := ctx.Done()
	if done == nil {
		// A context that can never be done (context.Background) needs no
		// select: a plain send parks directly in the channel's queue,
		// which is what makes the raw channel fast under contention.
		s.slots <- struct{}{}
		return nil
	}
	select {
	case s.slots <- struct{}{}:
		return nil
	case <-done:
		return ctx.Err()
	}
}

// acquireMany gathers n > 1 permits one at a time, holding the gate so that
// no other multi-permit request gathers at the same time.
func (s *gather) acquireMany(ctx context.Context, n int64) error {
	select {
	case s.gate <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.gate }()
	for got := int64(0); got < n; got++ {
		select {
		case s.slots <- struct{}{}:
		case <-ctx.Done():
			s.giveBack(got)
			return ctx.Err()
		}
	}
	return nil
}

// TryAcquire takes n permits only if it can do so at once, and reports
// whether it did. It takes all n or none, and fails while an Acquire waits.
// TryAcquire(0) reports true. It panics if n < 0.
func (s *gather) TryAcquire(n int64) bool {
	pkg.PanicIfNegative("TryAcquire", n)
	switch {
	case n == 0:
		return true
	case n == 1:
		select {
		case s.slots <- struct{}{}:
			return true
		default:
			return false
		}
	case n > s.size:
		return false
	}
	select {
	case s.gate <- struct{}{}:
	default:
		return false // a multi-permit Acquire is gathering
	}
	defer func() { <-s.gate }()
	for got := int64(0); got < n; got++ {
		select {
		case s.slots <- struct{}{}:
		default:
			s.giveBack(got)
			return false
		}
	}
	return true
}

// Release returns n permits, waking waiters in arrival order. It panics if n
// is negative or more than the permits held; the check happens before any
// permit is returned.
func (s *gather) Release(n int64) {
	if n == 1 {
		// The common case in one channel operation: a receive that finds
		// the buffer empty is itself the over-release check.
		select {
		case <-s.slots:
			return
		default:
			pkg.PanicOverRelease(n, 0)
		}
	}
	pkg.PanicIfNegative("Release", n)
	if held := int64(len(s.slots)); n > held {
		pkg.PanicOverRelease(n, held)
	}
	s.giveBack(n)
}

// giveBack returns n permits known to be held.
func (s *gather) giveBack(n int64) {
	for range n {
		select {
		case <-s.slots:
		default:
			// Only a concurrent Release of permits this caller never held
			// can empty the buffer under us.
			pkg.PanicOverRelease(n, int64(len(s.slots)))
		}
	}
}
