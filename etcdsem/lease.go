package etcdsem

import (
	"context"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// lease is an etcd lease as a session, or a handle on it, sees it. The
// session's keep-alive loop (see Session.keepAlive) refreshes it; it is
// trusted until a safety margin before the earliest moment the server
// could let it expire, and not a moment longer.
//
// The server expires a lease TTL after the last keep-alive it received.
// That keep-alive was received after it was sent, and a new leader only
// ever extends leases, so sent + TTL is a lower bound on the expiry as
// measured by the holder's clock, as long as both clocks run at about the
// same rate. The margin (see safetyMargin) covers clocks that do not, and
// timers that fire late. Once the trust ends, dead is closed for good: a
// refresh that succeeds later does not revive the handle, since another
// holder may have been admitted meanwhile.
type lease struct {
	id   clientv3.LeaseID
	ttl  time.Duration   // as the server granted it
	ctx  context.Context // canceled when dead closes: bounds background work
	dead chan struct{}   // closed once the lease is not to be trusted

	mu      sync.Mutex
	until   time.Time // the trust ends here unless a refresh moves it
	expired error     // the cause if the trust runs out
	cause   error     // why dead closed: wraps ErrLeaseLost, or ErrClosed
	cancel  context.CancelFunc
	timer   *time.Timer
}

// safetyMargin is how long before sent + TTL the handle stops trusting its
// lease: a tenth of the TTL for the holder to stop (timers that fire late,
// work under way), plus a hundredth for clock drift.
func safetyMargin(ttl time.Duration) time.Duration {
	return ttl/10 + ttl/100
}

// newLease starts trusting the lease id, granted for ttl by a request sent
// at sent. expired is the cause recorded if the trust ends by running out.
func newLease(parent context.Context, id clientv3.LeaseID, ttl time.Duration, sent time.Time, expired error) *lease {
	return trustUntil(parent, id, ttl, sent.Add(ttl-safetyMargin(ttl)), expired)
}

// trustUntil starts trusting the lease id until until.
func trustUntil(parent context.Context, id clientv3.LeaseID, ttl time.Duration, until time.Time, expired error) *lease {
	l := &lease{id: id, ttl: ttl, dead: make(chan struct{}), until: until, expired: expired}
	l.ctx, l.cancel = context.WithCancel(parent)
	l.timer = time.AfterFunc(time.Until(l.until), l.expire)
	return l
}

// view returns one handle's view of l: the same lease, trusted until the
// same moment and refreshed with l (see Session.refreshed), but ended on
// its own, so that closing one handle ends no other. Its context ends
// with l's. If l is no longer trusted, neither is the view, for expired.
func (l *lease) view(expired error) *lease {
	l.mu.Lock()
	until, trusted := l.until, l.cause == nil
	l.mu.Unlock()
	v := trustUntil(l.ctx, l.id, l.ttl, until, expired)
	if !trusted {
		v.end(expired)
	}
	return v
}

// refreshed records a keep-alive sent at sent that the server confirmed,
// granting ttl from then.
func (l *lease) refreshed(sent time.Time, ttl time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.expireLocked() // a reply that comes too late revives nothing
	until := sent.Add(ttl - safetyMargin(ttl))
	if l.cause != nil || !until.After(l.until) {
		return
	}
	l.until = until
	l.timer.Reset(time.Until(until))
}

// expire ends the trust if its time has come (a refresh may have moved it
// while the timer fired).
func (l *lease) expire() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.expireLocked()
}

func (l *lease) expireLocked() {
	if l.cause == nil && !time.Now().Before(l.until) {
		l.endLocked(l.expired)
	}
}

// end ends the trust now, for cause, unless it ended already.
func (l *lease) end(cause error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.endLocked(cause)
}

func (l *lease) endLocked(cause error) {
	if l.cause != nil {
		return
	}
	l.cause = cause
	l.timer.Stop()
	l.cancel()
	close(l.dead)
}

// err returns nil while the lease is trusted, and why it is not after. It
// looks at the clock itself rather than wait for the timer, which may not
// have run yet in a process that was just paused.
func (l *lease) err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.expireLocked()
	return l.cause
}

// deadline is when the trust ends unless a refresh moves it.
func (l *lease) deadline() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.until
}
