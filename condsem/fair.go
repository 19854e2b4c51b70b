package condsem

import (
	"context"
	"slices"

	"github.com/semacat/sem/internal/check"
)

// Fair is the condition-variable semaphore made first come, first served:
// requests of any weight are served in arrival order, a large request is
// never starved, and TryAcquire never passes a waiter. The price is
// head-of-line blocking: small requests that would fit wait behind a large
// one at the head. It implements sem.Semaphore, sem.Resizer, sem.Closer and
// sem.Observer. The zero value is not usable; call NewFair or
// NewFairAvailable.
type Fair struct {
	core // cond holds the waiters for the head of the queue to change or fit
}

// NewFair returns a first-come, first-served semaphore with size permits,
// all free. It panics if size is less than 1.
func NewFair(size int64) *Fair {
	pkg.PanicIfBadSize("NewFair", size, check.Unbounded)
	return NewFairAvailable(size, size)
}

// NewFairAvailable returns a first-come, first-served semaphore with size
// permits of which only available are free: it starts as if size-available
// permits were held, so Release may give back that many more than were
// acquired. It panics if size is less than 1 or available is not between 0
// and size.
func NewFairAvailable(size, available int64) *Fair {
	pkg.PanicIfBadAvailable("NewFairAvailable", size, available, check.Unbounded)
	s := &Fair{}
	s.init(size, available, true)
	return s
}

// Acquire takes n permits, blocking until every request that arrived before
// it has been served or has given up and n permits are free, or until ctx is
// done.
//
// On success it returns nil. If ctx is already done it returns ctx.Err()
// without acquiring, even when permits are free; if ctx is done while it
// waits, it leaves the queue, wakes the request behind it if that one can
// now be served, and returns ctx.Err(). If n exceeds the size it returns at
// once an error wrapping sem.ErrExceedsSize, as it does if a Resize makes
// the size smaller than n while it waits. Once the semaphore is closed it
// returns an error wrapping sem.ErrClosed. Acquire(ctx, 0) returns
// ctx.Err() without blocking or queueing, or that error once closed. It
// panics if n < 0.
func (s *Fair) Acquire(ctx context.Context, n int64) error {
	return s.acquire(ctx, n, s.wait)
}

// wait queues a request for n permits and parks until it is at the head
// and fits, or until ctx is done. It is called with s.mu held and returns
// with it held.
func (s *Fair) wait(ctx context.Context, n int64) error {
	t := s.next
	s.next++
	s.queue = append(s.queue, request{ticket: t, n: n})
	// The context first, as in the plain variant's wait.
	for {
		if err := s.failure(ctx, n); err != nil {
			s.leave(t)
			return err
		}
		if s.queue[0].ticket == t && s.limit-s.cur >= n {
			break
		}
		s.cond.wait(ctx)
	}
	s.queue = slices.Delete(s.queue, 0, 1)
	s.cur += n
	s.wakeHead()
	return nil
}

// leave removes the request with ticket t from the queue, waking the next
// head if t was the head.
func (s *Fair) leave(t uint64) {
	i := slices.IndexFunc(s.queue, func(r request) bool { return r.ticket == t })
	s.queue = slices.Delete(s.queue, i, i+1)
	if i == 0 {
		s.wakeHead()
	}
}

// TryAcquire takes n permits only if nobody is queued and they are free at
// once, and reports whether it did. It takes all n or none, and fails while
// an Acquire waits, even when n permits are free. TryAcquire(0) reports
// true until the semaphore is closed. It panics if n < 0.
func (s *Fair) TryAcquire(n int64) bool { return s.tryAcquire(n) }
