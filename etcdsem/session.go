package etcdsem

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// ErrSessionClosed is returned by New for a handle on a [Session] that was
// closed, and wrapped, with [ErrLeaseLost], by the errors of the handles
// that were on it.
var ErrSessionClosed = errors.New("etcdsem: session closed")

// Session is one etcd lease, kept alive, that many handles share, on as
// many names as needed, as etcd's concurrency.Session is for its Mutex: a
// process that uses a thousand semaphores keeps one lease alive, with one
// keep-alive per third of its TTL, not a thousand. Make handles on it with
// [WithSession]; a handle made without one has a session of its own.
//
// The lease is the holder, so the handles on a Session share its fate:
// when it is lost (it expired, or the server no longer knows it) or the
// Session is closed, every key of every handle on it is gone, their
// Permits' Done channels close, and every later call on them fails with
// an error wrapping [ErrLeaseLost]. Closing one handle deletes only that
// handle's keys.
type Session struct {
	cli     *clientv3.Client
	id      clientv3.LeaseID
	timeout time.Duration
	hook    *testHook
	trust   *lease // the session's own view of the lease, refreshed by keepAlive
	handles atomic.Uint64

	mu     sync.Mutex
	views  map[*lease]string // each handle's view of the lease, and its semaphore's name
	closed bool

	background sync.WaitGroup // the keep-alive loop
}

// NewSession grants a lease on cli and starts keeping it alive. ctx bounds
// the grant, not the session's life. Of the options, [WithLease] sets the
// lease's TTL and [WithTimeout] bounds the grant too, and the revocation;
// NewSession panics, naming it, if given any other (they are the
// handles': see New), and if cli is nil. It returns an error wrapping [ErrUnavailable] if
// etcd cannot be reached in time. Close it once the handles on it are
// closed, or to end them all at once.
func NewSession(ctx context.Context, cli *clientv3.Client, opts ...Option) (*Session, error) {
	if cli == nil {
		nilClient("NewSession")
	}
	o := buildOptions("NewSession", opts, "WithPrefix", "WithOwner", "WithErrorHandler", "WithSession")
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	ss, err := newSession(ctx, cli, o, hookForNewHandle())
	if err != nil {
		return nil, roundTripErr("NewSession: granting the lease", err)
	}
	return ss, nil
}

// newSession grants the lease of a session and starts its keep-alive loop.
func newSession(ctx context.Context, cli *clientv3.Client, o options, hook *testHook) (*Session, error) {
	ttl := max(int64((o.lease+time.Second-1)/time.Second), 1)
	sent := time.Now()
	grant, err := cli.Grant(ctx, ttl)
	if err != nil {
		return nil, err
	}
	ss := &Session{cli: cli, id: grant.ID, timeout: o.timeout, hook: hook, views: make(map[*lease]string)}
	ss.trust = newLease(cli.Ctx(), grant.ID, time.Duration(grant.TTL)*time.Second, sent,
		ss.lost("", "no keep-alive was confirmed in time; the server may have expired the lease"), hook)
	ss.background.Add(1)
	go ss.keepAlive()
	return ss, nil
}

// WithSession makes the handle hold its keys on ss's lease instead of a
// lease of its own: see [Session]. [WithLease] is then the session's. The
// handle's client and the session's must reach the same etcd cluster. It
// panics if ss is nil.
func WithSession(ss *Session) Option {
	if ss == nil {
		panic(fmt.Sprintf("%s: WithSession(nil): the session must not be nil (make one with NewSession)", pkg))
	}
	return func(o *options) { o.session = ss; o.set = append(o.set, "WithSession") }
}

// Lease returns the ID of the session's lease.
func (ss *Session) Lease() clientv3.LeaseID { return ss.id }

// Done returns a channel that is closed when the session's lease can no
// longer be trusted to be alive, or the session is closed: the handles on
// it have then lost every permit they held (see [Permit.Done]).
func (ss *Session) Done() <-chan struct{} {
	_ = ss.trust.err() // a trust that ran out while the process was paused ends now
	return ss.trust.dead
}

// Close revokes the session's lease, which deletes the keys of every
// handle on it: the permits they hold are given back, their waiting
// Acquire calls and every later call fail with an error wrapping
// [ErrSessionClosed] and [ErrLeaseLost], and their Permits' Done channels
// close. Close the handles too, to stop their background work. Close
// returns the error of the revocation, if any (the permits then come back
// when the lease expires); calls after the first return nil.
func (ss *Session) Close() error {
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return nil
	}
	ss.closed = true
	for view, name := range ss.views {
		view.end(fmt.Errorf("%w: %w", ss.lost(name, "its session was closed, which revoked the lease"), ErrSessionClosed))
	}
	ss.mu.Unlock()
	ss.trust.end(ErrSessionClosed)
	ss.background.Wait()
	ctx, cancel := context.WithTimeout(ss.cli.Ctx(), ss.timeout)
	defer cancel()
	if _, err := ss.cli.Revoke(ctx, ss.id); err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return roundTripErr(fmt.Sprintf("Close: revoking lease %x", int64(ss.id)), err)
	}
	return nil
}

// join returns a new handle's view of the lease, for the semaphore name,
// and the handle's number in the session, which keeps its keys apart from
// those of the other handles on the lease.
func (ss *Session) join(name string) (*lease, uint64, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return nil, 0, fmt.Errorf("%s: New(%q): %w", pkg, name, ErrSessionClosed)
	}
	view := ss.trust.view(ss.lost(name, "no keep-alive was confirmed in time; the server may have expired the lease"))
	ss.views[view] = name
	return view, ss.handles.Add(1), nil
}

// leave forgets a closed handle's view.
func (ss *Session) leave(view *lease) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.views, view)
}

// gone ends the trust of the session and of every handle on it: the
// server said it does not know the lease.
func (ss *Session) gone() {
	const why = "the server no longer knows the lease"
	ss.mu.Lock()
	for view, name := range ss.views {
		view.end(ss.lost(name, why))
	}
	ss.mu.Unlock()
	ss.trust.end(ss.lost("", why))
}

// lost is the error of a handle on the semaphore name (none: of the
// session) whose lease is gone, for the reason why.
func (ss *Session) lost(name, why string) error {
	if name == "" {
		return fmt.Errorf("%s: session, lease %x: %s: %w", pkg, int64(ss.id), why, ErrLeaseLost)
	}
	return leaseLost(name, ss.id, why)
}

// refreshed records a keep-alive sent at sent that the server confirmed,
// granting ttl from then, in the session's view and every handle's.
func (ss *Session) refreshed(sent time.Time, ttl time.Duration) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.trust.refreshed(sent, ttl)
	for view := range ss.views {
		view.refreshed(sent, ttl)
	}
}

// keepAlive refreshes the lease three times per TTL until the session is
// closed or stops trusting its lease.
func (ss *Session) keepAlive() {
	defer ss.background.Done()
	t := time.NewTimer(ss.trust.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ss.trust.dead:
			return
		case <-t.C:
		}
		ss.refresh()
		t.Reset(ss.trust.ttl / 3)
	}
}

// refresh sends keep-alives until one is confirmed, the server says the
// lease is gone, or the session stops trusting it (its deadline passed).
// Each attempt gets a third of the TTL at most, so that a connection that
// hangs rather than fails leaves time for more attempts.
func (ss *Session) refresh() {
	for attempt := 0; !ss.hook.refreshPaused(); attempt++ {
		sent := time.Now()
		deadline := sent.Add(ss.trust.ttl / 3)
		if until := ss.trust.deadline(); until.Before(deadline) {
			deadline = until
		}
		ctx, cancel := context.WithDeadline(ss.trust.ctx, deadline)
		resp, err := ss.cli.KeepAliveOnce(ctx, ss.id)
		cancel()
		switch {
		case err == nil:
			ss.refreshed(sent, time.Duration(resp.TTL)*time.Second)
			return
		case errors.Is(err, rpctypes.ErrLeaseNotFound):
			ss.gone()
			return
		}
		t := time.NewTimer(min(time.Duration(attempt+1)*100*time.Millisecond, time.Second))
		select {
		case <-ss.trust.dead:
			t.Stop()
			return
		case <-t.C:
		}
	}
}
