package redissem

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/semacat/sem"
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
// holding them. A grant it learns of only after its lease may have run out
// in Redis (the notification came late, by more than the lease less the
// margin of [Permit.Done]) may have been reaped and given to another
// holder: Acquire gives it back, reports it to the error handler, and
// waits on, its request queued anew at the back of the queue, until it
// gets a grant it can trust or ctx is done. Each of its round trips is bounded by ctx and the handle's
// timeout, and the withdrawal after ctx is done by the timeout, so it
// returns within ctx's deadline plus one timeout at worst.
//
// If n exceeds the size it returns an error wrapping sem.ErrExceedsSize
// after one round trip, in which Redis checks n against the size it holds
// (another handle may have resized the semaphore); so does a waiting
// Acquire that a shrink made larger than the size. If its first round trip
// fails, it returns an error wrapping ErrUnavailable, after withdrawing the
// request on a best effort basis (otherwise it expires within the lease). While it waits, the
// handle keeps its place in the queue alive; if Redis stays out of reach for
// longer than the lease, the place is lost and the request joins the queue
// again once Redis answers. If Redis refuses
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
// error to the error handler; so it does, giving the grant back, if the
// reply came so late that the lease may have run out in Redis. It reports
// false for n larger than the size.
// TryAcquire(0) reports true until the handle is closed. It panics if
// n < 0.
func (s *Semaphore) TryAcquire(n int64) bool {
	checkWeight("TryAcquire", n)
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
	} else if err != nil && !errors.Is(err, sem.ErrExceedsSize) {
		s.withdraw(id)
	}
	switch {
	case errors.Is(err, ErrClosed), errors.Is(err, sem.ErrExceedsSize):
	case errors.Is(err, ErrNotReplicated):
		s.report(err)
	case err != nil:
		s.report(fmt.Errorf("%s: TryAcquire(%d) on %q: %w", pkg, n, s.name, err))
	}
	return err == nil && token > 0
}

// acquire runs Acquire and AcquirePermit for n > 0: it asks for the
// permits until it holds a grant it can still trust, or fails. A grant
// whose validity ended before the waiter heard of it (its notification
// came late, or its round trips were slow) is one Redis may have reaped
// and given to someone else already: ask gives it back, and acquire asks
// again, at the back of the queue, since the request's place went with
// the grant.
func (s *Semaphore) acquire(ctx context.Context, method string, n int64, permit bool) (*grant, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	start := time.Now()
	waited := false
	for {
		g, queued, err := s.ask(ctx, method, n, permit)
		waited = waited || queued
		if errors.Is(err, errGrantExpired) && ctx.Err() == nil {
			s.report(fmt.Errorf("%s: %s(%d) on %q: %w; asking again", pkg, method, n, s.name, err))
			continue
		}
		if errors.Is(err, errGrantExpired) {
			err = ctx.Err()
		}
		if waited {
			s.waited(n, start, err)
		}
		return g, err
	}
}

// ask sends one request for n permits, then waits for its grant's
// notification, or for the handle's refresh of its queue entry to find it
// granted or gone; it reports whether the request was queued.
func (s *Semaphore) ask(ctx context.Context, method string, n int64, permit bool) (g *grant, queued bool, err error) {
	id, w, err := s.newWaiter()
	if err != nil {
		return nil, false, err
	}
	defer s.dropWaiter(id)
	token, err := s.request(ctx, id, n, "wait")
	if errors.Is(err, sem.ErrExceedsSize) {
		return nil, false, err // resized elsewhere: Redis refused the request
	}
	if err != nil {
		return nil, false, s.acquireError(ctx, method, id, n, err)
	}
	if token > 0 {
		g, err := s.granted(ctx, method, id, n, token, s.queuedSince(w), permit)
		return g, false, err
	}
	g, err = s.await(ctx, method, id, w, n, permit)
	return g, true, err
}

// await waits for the grant of request id, queued in Redis.
func (s *Semaphore) await(ctx context.Context, method, id string, w *waiter, n int64, permit bool) (*grant, error) {
	for {
		select {
		case t := <-w.wake:
			if token, ok := parseToken(t); ok {
				s.heardGrant()
				return s.granted(ctx, method, id, n, token, s.queuedSince(w), permit)
			}
			// The handle's refresh found the entry gone (it expired while
			// Redis was out of reach), or the notification was malformed:
			// ask again, which queues the request anew if need be.
			sent := time.Now()
			token, err := s.request(ctx, id, n, "wait")
			switch {
			case err == nil && token > 0:
				return s.granted(ctx, method, id, n, token, s.queuedSince(w), permit)
			case err == nil:
				s.queuedAt(w, sent)
			case errors.Is(err, sem.ErrExceedsSize):
				return nil, err // a shrink made the request impossible
			case ctx.Err() == nil && errors.Is(err, ErrUnavailable):
				// The refresh asks again once Redis answers.
			default:
				return nil, s.acquireError(ctx, method, id, n, err)
			}
		case <-ctx.Done():
			s.withdraw(id)
			return nil, ctx.Err()
		case <-s.done:
			// Close withdrew the request, unless its grant was delivered
			// before (it left the waiters then).
			select {
			case <-w.wake:
				s.withdraw(id)
			default:
			}
			return nil, ErrClosed
		}
	}
}

// heardGrant runs the test hook, if any, when a waiter hears of its grant.
func (s *Semaphore) heardGrant() {
	if s.hooks != nil && s.hooks.heardGrant != nil {
		s.hooks.heardGrant()
	}
}

// acquireError turns a failed round trip of a request into Acquire's error,
// after withdrawing the request in case Redis recorded it; once the handle
// is closed, ErrClosed, since Close withdrew every request still queued.
func (s *Semaphore) acquireError(ctx context.Context, method, id string, n int64, err error) error {
	if s.isClosed() {
		return ErrClosed // Close withdrew the request
	}
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

// errGrantExpired is the error of a grant whose validity ended before its
// holder could take it over: Acquire asks again, TryAcquire reports false.
var errGrantExpired = errors.New("the grant's lease may have run out in Redis before the reply or notification of it arrived; it was given back")

// hold records a grant in the handle's books. If the handle was closed
// meanwhile, it gives the grant back and returns ErrClosed; if the grant's
// validity is over already, it gives it back and returns errGrantExpired.
func (s *Semaphore) hold(g *grant) (*grant, error) {
	s.mu.Lock()
	if s.closed || s.expiredAt(g, time.Now()) {
		closed := s.closed
		s.mu.Unlock()
		s.withdraw(g.id)
		if closed {
			return nil, ErrClosed
		}
		return nil, errGrantExpired
	}
	defer s.mu.Unlock()
	if !g.permit {
		s.held += g.n
	}
	s.grants = append(s.grants, g)
	s.armExpiry(g.valid)
	return g, nil
}

// waiter is an Acquire whose request is, or is about to be, in the queue.
type waiter struct {
	// wake receives the grant's token, or "" when the request must be sent
	// again. "" is only sent into an empty channel, and every send holds
	// the handle's mu, so the one token always fits.
	wake chan string
	// since is the send time of the last round trip that found the request
	// queued (at first, of the request): a grant that follows started its
	// lease after it. Guarded by the handle's mu.
	since time.Time
}

// newWaiter allocates a request id and the waiter its grant reaches, before
// the request reaches Redis, so that no notification is missed.
func (s *Semaphore) newWaiter() (string, *waiter, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", nil, ErrClosed
	}
	id := s.nextID()
	w := &waiter{wake: make(chan string, 2), since: time.Now()}
	s.waiters[id] = w
	return id, w, nil
}

// queuedSince returns w.since.
func (s *Semaphore) queuedSince(w *waiter) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return w.since
}

// queuedAt records that a round trip sent at t found w queued.
func (s *Semaphore) queuedAt(w *waiter, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.After(w.since) {
		w.since = t
	}
}

func (s *Semaphore) dropWaiter(id string) {
	s.mu.Lock()
	delete(s.waiters, id)
	s.mu.Unlock()
}

// request runs the acquire script for id in mode "try" or "wait"; it
// returns the grant's token, or 0 when the request is queued or refused.
func (s *Semaphore) request(ctx context.Context, id string, n int64, mode string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	v, err := s.ints(s.eval(ctx, acquireScript, false, id, n, mode))
	if err != nil {
		return 0, err
	}
	if len(v) < 3 {
		return 0, fmt.Errorf("unexpected reply %v from the acquire script", v)
	}
	s.size.Store(v[2])
	switch v[0] {
	case 1:
		return v[1], nil
	case -2:
		return 0, fmt.Errorf("request %s was withdrawn already", id)
	case -3:
		return 0, exceedsSize(n, v[2])
	}
	return 0, nil
}

// safetyMargin is how long before the server may expire a lease its holder
// stops trusting it: a tenth of the lease for the holder to notice and stop,
// plus a hundredth for the client's clock running slower than the server's.
func safetyMargin(lease time.Duration) time.Duration {
	return lease/10 + lease/100
}

// newGrant returns a grant whose lease started in Redis no earlier than
// since, the send time of a request Redis answered before the grant.
func (s *Semaphore) newGrant(id string, n, token int64, since time.Time, permit bool) *grant {
	return &grant{id: id, n: n, token: token, permit: permit,
		valid: since.Add(s.lease - s.margin), done: make(chan struct{})}
}

// waited reports an Acquire of n permits that waited from start, and
// returned err, to the function OnWait installed.
func (s *Semaphore) waited(n int64, start time.Time, err error) {
	if f := s.onWait.Load(); f != nil {
		(*f)(sem.WaitEvent{N: n, Start: start, End: time.Now(), Err: err})
	}
}

// checkWeight panics, naming the method and the value, if n is negative: a
// programmer's error.
func checkWeight(method string, n int64) {
	if n < 0 {
		panic(fmt.Sprintf("%s: %s(%d): negative weight", pkg, method, n))
	}
}

// exceedsSize is the error of a request for more permits than size: an
// impossible weight, not a programmer's error.
func exceedsSize(n, size int64) error {
	return fmt.Errorf("%s: Acquire(%d) on size %d: %w", pkg, n, size, sem.ErrExceedsSize)
}

// nextID returns a new request id; s.mu must be held.
func (s *Semaphore) nextID() string {
	s.seq++
	return s.handle + "/" + strconv.FormatUint(s.seq, 10)
}

// grant is one admitted request, as this handle holds it.
type grant struct {
	id     string
	n      int64 // permits still held under it
	token  int64
	permit bool // held by a Permit, outside the handle's held count

	// Guarded by the handle's mu.
	lost     bool      // Redis reported it gone; no longer refreshed
	released bool      // by Permit.Release
	valid    time.Time // until when the lease surely holds in Redis
	done     chan struct{}
	err      error // why done is closed
}

// end closes the grant's Done channel with err, once; s.mu must be held.
func (g *grant) end(err error) {
	if g.err == nil {
		g.err = err
		close(g.done)
	}
}

// isClosed reports whether Close was called.
func (s *Semaphore) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}
