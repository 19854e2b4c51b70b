// Package condsem is the textbook semaphore: a count of held permits guarded
// by a mutex, with waiters parked on a condition variable. It is the clearest
// strategy to read, and it comes in two variants that differ only in who may
// take free permits: [New] builds the plain one, [NewFair] a first-come,
// first-served one.
//
// Both keep the whole sem contract and implement sem.Resizer, sem.Closer and
// sem.Observer; NewAvailable and NewFairAvailable start them with fewer free
// permits than their size. The plain variant promises nothing more: a
// newcomer may take free permits before a waiter, and a large request can
// wait forever while small ones keep cycling. The fair variant serves
// requests of any weight in arrival order, never starves a large one, and
// its TryAcquire never passes a waiter.
//
// Choose condsem to read, teach or extend a semaphore whose every step is
// plain to see. A Release wakes every waiter (in the fair variant, when the
// head of the queue fits), and each rechecks in turn, so for a busy
// semaphore with many waiters choose weighted (arrival order) or spinsem
// (throughput).
//
//	s := condsem.NewFair(4)
//	if err := s.Acquire(ctx, 2); err != nil {
//		return err // ctx is done: nothing was acquired
//	}
//	defer s.Release(2)
//
// How both variants work, and what each costs, is told in a comment in
// design.go and, with diagrams and measurements, in the course's
// page at https://github.com/semacat/sem/blob/main/docs/condsem.md.
package condsem

import (
	"context"

	"github.com/semacat/sem/internal/check"
)

const pkg check.Pkg = "condsem"

// Semaphore is the plain condition-variable semaphore. It makes no promise
// about the order in which waiters are served, and a large request may wait
// forever while small ones keep cycling. It implements sem.Semaphore,
// sem.Resizer, sem.Closer and sem.Observer. The zero value is not usable;
// call New or NewAvailable.
type Semaphore struct {
	core // cond holds the waiters for free permits
}

// New returns a plain semaphore with size permits, all free. It panics if
// size is less than 1.
func New(size int64) *Semaphore {
	pkg.PanicIfBadSize("New", size, check.Unbounded)
	return NewAvailable(size, size)
}

// NewAvailable returns a plain semaphore with size permits of which only
// available are free: it starts as if size-available permits were held, so
// Release may give back that many more than were acquired. NewAvailable(1,
// 0) is a signalling semaphore. It panics if size is less than 1 or
// available is not between 0 and size.
func NewAvailable(size, available int64) *Semaphore {
	pkg.PanicIfBadAvailable("NewAvailable", size, available, check.Unbounded)
	s := &Semaphore{}
	s.init(size, available, false)
	return s
}

// Acquire takes n permits, blocking until they are all free at once or ctx
// is done. Waiters are served in no particular order, and newcomers may
// take permits ahead of them.
//
// On success it returns nil. If ctx is already done it returns ctx.Err()
// without acquiring, even when permits are free; if ctx is done while it
// waits, it returns ctx.Err() and the semaphore is as if the call had never
// happened. If n exceeds the size it returns at once an error wrapping
// sem.ErrExceedsSize, as it does if a Resize makes the size smaller than n
// while it waits. Once the semaphore is closed it returns an error wrapping
// sem.ErrClosed. Acquire(ctx, 0) returns ctx.Err() without blocking, or
// that error once closed. It panics if n < 0.
func (s *Semaphore) Acquire(ctx context.Context, n int64) error {
	return s.acquire(ctx, n, s.wait)
}

// wait parks until n permits are free and takes them, or until ctx is
// done, the semaphore is closed, or n exceeds the size. It is called with
// s.mu held and returns with it held.
func (s *Semaphore) wait(ctx context.Context, n int64) error {
	for {
		// The context first: a cancellation that came before the
		// permits were free wins, even if they are free now.
		if err := s.failure(ctx, n); err != nil {
			return err
		}
		if s.limit-s.cur >= n {
			s.cur += n
			return nil
		}
		s.cond.wait(ctx)
	}
}

// TryAcquire takes n permits only if they are free at once, and reports
// whether it did. It takes all n or none. It succeeds whenever n permits are
// free, even while an Acquire waits for more. TryAcquire(0) reports true
// until the semaphore is closed. It panics if n < 0.
func (s *Semaphore) TryAcquire(n int64) bool { return s.tryAcquire(n) }
