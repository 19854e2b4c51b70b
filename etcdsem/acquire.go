package etcdsem

import (
	"context"
	"time"

	"github.com/semacat/sem"
)

// Acquire takes n permits, blocking until they are available or ctx is done.
// Requests of any weight, from any handle, are served in the order they
// reached etcd.
//
// On success it returns nil and the handle holds n more permits, on a lease
// it still trusts. If ctx is already done it returns ctx.Err() without
// writing anything; if ctx is done before Acquire learns that its key
// holds, even when the key has just come to hold, it deletes its key (so
// the queue is as if it never came) and returns ctx.Err(). Two requests may
// outlive ctx, each bounded by the timeout (see [WithTimeout]): the write
// that joins the queue, whose outcome Acquire waits for rather than leave
// a key it cannot account for, and that deletion. With a server that
// answers, Acquire returns at worst a round trip or two after ctx's
// deadline; with one that does not, at worst one timeout after it.
//
// If n exceeds the size it returns an error wrapping sem.ErrExceedsSize,
// after the one round trip that checks the size in etcd, and writes
// nothing; so does a waiting Acquire when a Resize shrinks the size below
// n (see [Semaphore.Resize]). Other errors wrap [ErrUnavailable]
// (after retrying unavailable servers until ctx is done), [ErrLeaseLost] or
// [ErrClosed]; the handle holds nothing new after any error, and an Acquire
// racing Close either returns nil before Close revoked the lease or fails
// with ErrClosed. It panics if n is negative.
func (s *Semaphore) Acquire(ctx context.Context, n int64) error {
	checkWeight("Acquire", n)
	if n == 0 {
		return s.acquireNothing(ctx)
	}
	_, err := s.acquire(ctx, n, true)
	return err
}

// acquireNothing answers a request for no permits, which never waits nor
// writes: ctx.Err() if ctx is done, else ErrClosed once the handle is
// closed, as every later request must fail, else nil.
func (s *Semaphore) acquireNothing(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	return nil
}

// TryAcquire takes n permits only if they are free and nobody is queued
// ahead, and reports whether it did. It takes all n or none. It costs one
// round trip when it succeeds and two when it fails (the second deletes the
// key it wrote); it reports false, and passes the error to the handler, if
// etcd cannot be reached within the timeout or the lease is lost.
// TryAcquire(0) reports true until the handle is closed. It panics if n is
// negative.
func (s *Semaphore) TryAcquire(n int64) bool {
	checkWeight("TryAcquire", n)
	if n == 0 {
		return s.acquireNothing(context.Background()) == nil
	}
	s.hook.enter() // before beyondSize, whose round trip is part of the call
	defer s.hook.leave()
	if _, beyond := s.beyondSize(n); beyond {
		return false
	}
	ctx, cancel := s.opCtx()
	defer cancel()
	e, q, err := s.enqueue(ctx, n)
	if err != nil {
		s.report(err)
		return false
	}
	if !q.fits(n) {
		s.drop(e)
		return false
	}
	if err := s.admit(ctx, e, true); err != nil {
		s.drop(e)
		s.report(err)
		return false
	}
	return true
}

// acquire writes a key of weight n > 0, waits until it holds and admits
// it: to the handle's pool if pool is set, else for a Permit. A request
// beyond the size, or a ctx already done, writes nothing.
func (s *Semaphore) acquire(ctx context.Context, n int64, pool bool) (*entry, error) {
	s.hook.enter() // before beyondSize, whose round trip is part of the call
	defer s.hook.leave()
	if size, beyond := s.beyondSize(n); beyond {
		return nil, exceedsSize(n, size)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, start := s.waitObserver()
	e, q, err := s.enqueue(ctx, n)
	if err != nil {
		return nil, err
	}
	switch {
	case q.exceeds(n): // the size shrank since beyondSize
		err = exceedsSize(n, q.rec.size)
	case q.fits(n):
		err = s.admit(ctx, e, pool)
	default:
		err = s.waitAndAdmit(ctx, e, q, pool, f, start)
	}
	if err != nil {
		s.drop(e)
		return nil, err
	}
	return e, nil
}

// waitObserver returns the function OnWait installed, if any, and the time
// now if there is one: when an Acquire that may wait began.
func (s *Semaphore) waitObserver() (*func(sem.WaitEvent), time.Time) {
	f := s.onWait.Load()
	if f == nil {
		return nil, time.Time{}
	}
	return f, time.Now()
}

// waitAndAdmit waits until e's key holds and admits it, and reports the
// wait, from start, to f if there is one.
func (s *Semaphore) waitAndAdmit(ctx context.Context, e *entry, q *queueState, pool bool, f *func(sem.WaitEvent), start time.Time) (err error) {
	if f != nil {
		n := e.weight
		defer func() { (*f)(sem.WaitEvent{N: n, Start: start, End: time.Now(), Err: err}) }()
	}
	if err = s.wait(ctx, e, q); err != nil {
		return err
	}
	return s.admit(ctx, e, pool)
}

// beyondSize reports whether n is more than the size, and the size. When
// the size the handle knows says so, it asks etcd first (bounded by the
// timeout): another handle may have grown it a moment ago.
func (s *Semaphore) beyondSize(n int64) (size int64, beyond bool) {
	rec := s.sizes.current()
	if n <= rec.size {
		return rec.size, false
	}
	ctx, cancel := s.opCtx()
	defer cancel()
	if resp, err := s.cli.Get(ctx, s.sizeKey); err == nil {
		rec = s.learnSize(resp)
	}
	return rec.size, n > rec.size
}

// admit makes a key that holds the caller's, unless the handle was closed,
// its lease is no longer trusted, or ctx is done (for TryAcquire, its
// timeout): a grant reported after any of those would be one the caller
// cannot use or does not want. Under s.mu, Close cannot slip in between
// the check and the admission.
func (s *Semaphore) admit(ctx context.Context, e *entry, pool bool) error {
	s.hook.admitting()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := s.lease.err(); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if pool {
		s.held = append(s.held, e)
		s.heldSum += e.weight
	}
	return nil
}
