package etcdsem

import (
	"context"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// lease is the handle's etcd lease as the handle sees it. A background loop
// (see keepAlive) refreshes it; the handle trusts it until a safety margin
// before the earliest moment the server could let it expire, and not a
// moment longer.
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
	l := &lease{id: id, ttl: ttl, dead: make(chan struct{}), until: sent.Add(ttl - safetyMargin(ttl)), expired: expired}
	l.ctx, l.cancel = context.WithCancel(parent)
	l.timer = time.AfterFunc(time.Until(l.until), l.expire)
	return l
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
