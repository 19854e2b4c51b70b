package redissem

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Acquire takes n permits, blocking until they are granted or ctx is done.
// Requests of any weight are granted in arrival order, as the Redis server
// sees it.
//
// On success the caller holds n permits, leased and refreshed in the
// background until released. If ctx is already done it returns ctx.Err()
// without acquiring, even when permits are free. If ctx is done while it
// waits, or by the time it learns of its grant, it withdraws its request
// (giving back a grant that raced with the cancellation) and returns
// ctx.Err(): it never returns nil without the permits, nor an error while
// holding them. Each of its round trips is bounded by ctx and the handle's
// timeout, and the withdrawal after ctx is done by the timeout, so it
// returns within ctx's deadline plus one timeout at worst.
//
// If n exceeds the size it returns at once, without a round trip, an error
// wrapping sem.ErrExceedsSize. If its first round trip fails, it returns an
// error wrapping ErrUnavailable, after withdrawing the request on a best
// effort basis (otherwise it expires within the lease). A failed poll while
// it waits is retried for as long as its place in the queue can still be
// alive, a lease after the last poll that got through. If Redis refuses
// grants after losing the semaphore's keys, the error wraps ErrStateLost;
// with WithReplicas, a grant the replicas did not confirm is given back and
// the error wraps ErrNotReplicated. If the handle is closed it returns
// ErrClosed. Acquire(ctx, 0) returns ctx.Err(), or ErrClosed once the
// handle is closed. It panics if n < 0.
func (s *Semaphore) Acquire(ctx context.Context, n int64) error {
	checkWeight("Acquire", n)
	if n == 0 {
		return s.acquireNothing(ctx)
	}
	_, err := s.acquire(ctx, "Acquire", n, false)
	return err
}

// acquireNothing answers a request for no permits, which never waits nor
// makes a round trip: ctx.Err() if ctx is done, else ErrClosed once the
// handle is closed, as every later request must fail, else nil.
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

// TryAcquire takes n permits only if it can do so at once, and reports
// whether it did. It takes all n or none, and fails while other requests are
// queued, even if n would fit (it never barges). It costs one round trip,
// bounded by the handle's timeout (plus the replicas' wait with
// WithReplicas); if Redis cannot be reached it reports false and passes the
// error to the error handler. TryAcquire(0) reports true until the handle is
// closed. It panics if n < 0.
func (s *Semaphore) TryAcquire(n int64) bool {
	checkWeight("TryAcquire", n)
	if n > s.size {
		return false
	}
	if n == 0 {
		return s.acquireNothing(context.Background()) == nil
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	id := s.nextID()
	s.mu.Unlock()
	sent := time.Now()
	token, err := s.request(context.Background(), id, n, "try")
	if err == nil && token > 0 {
		_, err = s.granted(context.Background(), "TryAcquire", id, n, token, sent, false)
	} else if err != nil {
		s.withdraw(id)
	}
	switch {
	case errors.Is(err, ErrClosed):
	case errors.Is(err, ErrNotReplicated):
		s.report(err)
	case err != nil:
		s.report(fmt.Errorf("%s: TryAcquire(%d) on %q: %w", pkg, n, s.name, err))
	}
	return err == nil && token > 0
}

// acquire runs Acquire and AcquirePermit for n > 0: it sends the request,
// then waits for its grant's notification, polling as a fallback.
func (s *Semaphore) acquire(ctx context.Context, method string, n int64, permit bool) (*grant, error) {
	if n > s.size {
		return nil, exceedsSize(n, s.size)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	id, wake, err := s.newWaiter()
	if err != nil {
		return nil, err
	}
	defer s.dropWaiter(id)
	// queued is the send time of the last request Redis answered: a grant
	// that follows started its lease after it.
	queued := time.Now()
	token, err := s.request(ctx, id, n, "wait")
	if err != nil {
		return nil, s.acquireError(ctx, method, id, n, err)
	}
	if token > 0 {
		return s.granted(ctx, method, id, n, token, queued, permit)
	}
	delay := s.pollMin
	timer := time.NewTimer(delay)
	defer timer.Stop()
	for {
		select {
		case t := <-wake:
			token, err := strconv.ParseInt(t, 10, 64)
			if err == nil {
				return s.granted(ctx, method, id, n, token, queued, permit)
			}
			// A malformed notification: ask the server instead.
			timer.Reset(0)
		case <-timer.C:
			sent := time.Now()
			token, err := s.request(ctx, id, n, "wait")
			switch {
			case err == nil && token > 0:
				return s.granted(ctx, method, id, n, token, queued, permit)
			case err == nil:
				queued = sent
				delay = min(2*delay, s.pollMax)
			case ctx.Err() == nil && errors.Is(err, ErrUnavailable) && time.Since(queued) < s.lease:
				// The entry outlives a failed poll; keep the place in line.
			default:
				return nil, s.acquireError(ctx, method, id, n, err)
			}
			timer.Reset(delay)
		case <-ctx.Done():
			s.withdraw(id)
			return nil, ctx.Err()
		case <-s.done:
			s.withdraw(id)
			return nil, ErrClosed
		}
	}
}

// acquireError turns a failed round trip of a request into Acquire's error,
// after withdrawing the request in case Redis recorded it.
func (s *Semaphore) acquireError(ctx context.Context, method, id string, n int64, err error) error {
	s.withdraw(id)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("%s: %s(%d) on %q: %w", pkg, method, n, s.name, err)
}

// granted takes over a grant Redis made to request id, whose lease started
// after since. If ctx is done by now, if the replicas do not confirm it
// (with WithReplicas), or if the handle was closed, it gives the grant back
// and returns the error.
func (s *Semaphore) granted(ctx context.Context, method, id string, n, token int64, since time.Time, permit bool) (*grant, error) {
	if err := ctx.Err(); err != nil {
		s.withdraw(id)
		return nil, err
	}
	if s.replicas > 0 {
		if err := s.confirm(ctx); err != nil {
			s.withdraw(id)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%s: %s(%d) on %q: %w; the grant was given back", pkg, method, n, s.name, err)
		}
	}
	return s.hold(s.newGrant(id, n, token, since, permit))
}

// hold records a grant in the handle's books. If the handle was closed
// meanwhile, it gives the grant back and returns ErrClosed.
func (s *Semaphore) hold(g *grant) (*grant, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.withdraw(g.id)
		return nil, ErrClosed
	}
	defer s.mu.Unlock()
	if !g.permit {
		s.held += g.n
	}
	s.grants = append(s.grants, g)
	s.armExpiry(g.valid)
	return g, nil
}

// newWaiter allocates a request id and the channel its grant notification
// arrives on, before the request reaches Redis, so none is missed.
func (s *Semaphore) newWaiter() (string, chan string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", nil, ErrClosed
	}
	id := s.nextID()
	ch := make(chan string, 1)
	s.waiters[id] = ch
	return id, ch, nil
}

func (s *Semaphore) dropWaiter(id string) {
	s.mu.Lock()
	delete(s.waiters, id)
	s.mu.Unlock()
}
