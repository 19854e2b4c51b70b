package condsem

import (
	"context"
	"slices"

	"github.com/semacat/sem/internal/check"
)

// Fair is the sync.Cond semaphore made first come, first served. It
// implements sem.Semaphore. The zero value is not usable; call NewFair.
//
// Design: every Acquire that cannot be served at once takes a ticket and
// joins a queue, in arrival order. Only the request at the head of the queue
// may take permits, and only when all of its permits are free; everyone else
// waits behind it. A newcomer, whether Acquire or TryAcquire, takes permits
// only when the queue is empty, so nobody barges. The condition variable is
// still the only way to wake a waiter, and Broadcast still wakes them all,
// so the head can recognise itself; but Fair broadcasts only when the head's
// request fits: after a Release, after a grant (the next head may fit too),
// and when a canceled head leaves the queue. A Release that cannot serve the
// head wakes nobody.
//
// What this buys: requests of any weight are served in arrival order, a
// large request cannot starve (once it is at the head, every permit released
// is kept for it), and TryAcquire never passes a queued waiter. semtest
// checks all three (FIFO, NoBarging, NoStarvation).
//
// What it costs: head-of-line blocking, since small requests that would fit
// wait behind a large head while permits sit idle; a hand-off for every
// permit under contention, since a releasing goroutine can no longer
// reacquire at once but must let the sleeping head run first; and still
// O(waiters) work per grant, because Broadcast cannot wake just the head.
// A condition variable per waiter, or a channel per waiter as in the
// weighted package, removes that last cost.
//
// Cancellation: a canceled waiter removes its ticket from the queue. If it
// was the head, the request behind it becomes the head and may fit, so it
// broadcasts; otherwise nothing changed for anyone else. As in the plain
// variant, a woken waiter looks at its context before the permits, so a
// cancellation that came first wins even at the head with its permits free,
// and they go to the request behind it.
//
// Resize, Close and observation work as in the plain variant: the limit the
// newcomer's check reads is zero once closed, and every waiter looks at the
// closed flag and the size when woken, leaving the queue if it must fail.
// Waiting sums the queue. Fair implements sem.Resizer, sem.Closer and
// sem.Observer.
type Fair struct {
	core            // cond holds the waiters for the head of the queue to change or fit
	queue []request // Acquire calls waiting, in arrival order
	next  uint64    // ticket for the next request to join the queue
}

// request is an Acquire waiting in a Fair queue.
type request struct {
	ticket uint64
	n      int64
}

// NewFair returns a first-come, first-served semaphore with size permits,
// all free. It panics if size is less than 1.
func NewFair(size int64) *Fair {
	check.ConstructorSize(pkg, "NewFair", size)
	return newFair(size, size)
}

// NewFairAvailable returns a first-come, first-served semaphore with size
// permits of which only available are free: it starts as if size-available
// permits were held, so Release may give back that many more than were
// acquired. It panics if size is less than 1 or available is not between 0
// and size.
func NewFairAvailable(size, available int64) *Fair {
	check.Available(pkg, "NewFairAvailable", size, available)
	return newFair(size, available)
}

func newFair(size, available int64) *Fair {
	s := &Fair{}
	s.init(size, available)
	return s
}

// Available returns the number of permits free at this instant, negative
// while a shrink has left more permits held than the size. It is a snapshot
// for monitoring and teaching, stale as soon as it returns. Free permits may
// still be unavailable to a newcomer, because they are being kept for the
// head of the queue.
func (s *Fair) Available() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.size.Load() - s.cur
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
	check.Weight(pkg, "Acquire", n)
	if size := s.size.Load(); n > size {
		return check.ExceedsSize(pkg, n, size)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if n == 0 {
		return s.zeroWeight()
	}
	s.mu.Lock()
	if len(s.queue) == 0 && s.limit-s.cur >= n {
		s.cur += n
		s.mu.Unlock()
		return nil
	}
	return s.hook.wait(ctx, n, s.wait)
}

// wait queues a request for n permits and parks until it is at the head
// and fits, or until ctx is done. It is called with s.mu held and returns
// with it released.
func (s *Fair) wait(ctx context.Context, n int64) error {
	stop := wakeOnDone(ctx, &s.cond)
	defer stop()
	t := s.next
	s.next++
	s.queue = append(s.queue, request{ticket: t, n: n})
	// The context first, as in the plain variant's wait.
	for {
		if err := failure(ctx, n, s.size.Load(), s.closed); err != nil {
			s.leave(t)
			s.mu.Unlock()
			return err
		}
		if s.queue[0].ticket == t && s.limit-s.cur >= n {
			break
		}
		s.cond.Wait()
	}
	s.queue = slices.Delete(s.queue, 0, 1)
	s.cur += n
	s.wakeHead()
	s.mu.Unlock()
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

// wakeHead wakes the waiters if the request at the head of the queue fits.
// All of them wake; all but the head go back to sleep.
func (s *Fair) wakeHead() {
	if len(s.queue) > 0 && s.limit-s.cur >= s.queue[0].n {
		s.cond.Broadcast()
	}
}

// TryAcquire takes n permits only if nobody is queued and they are free at
// once, and reports whether it did. It takes all n or none, and fails while
// an Acquire waits, even when n permits are free. TryAcquire(0) reports
// true until the semaphore is closed. It panics if n < 0.
func (s *Fair) TryAcquire(n int64) bool {
	check.Weight(pkg, "TryAcquire", n)
	if n == 0 {
		return s.zeroWeight() == nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) > 0 || s.limit-s.cur < n {
		return false
	}
	s.cur += n
	return true
}

// Release returns n permits and, if the request at the head of the queue
// now fits, wakes the waiters so that it is served. It panics if n is
// negative or more than the permits held; the check happens before any
// permit is returned.
func (s *Fair) Release(n int64) {
	check.Weight(pkg, "Release", n)
	if n == 0 {
		return
	}
	s.mu.Lock()
	if n > s.cur {
		held := s.cur
		s.mu.Unlock()
		check.OverRelease(pkg, n, held)
	}
	s.cur -= n
	s.wakeHead()
	s.mu.Unlock()
}
