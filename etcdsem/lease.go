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
// same rate, and as long as no deposed leader revokes the lease (one
// paused past the TTL and resumed can: see Permit.Done). The margin (see safetyMargin) covers clocks that do not, and
// timers that fire late. Once the trust ends, dead is closed for good: a
// refresh that succeeds later does not revive the handle, since another
// holder may have been admitted meanwhile.
//
// The trust ends when either of two clocks says so. Go's timers and
// time.Since run on the monotonic clock, which stops while the machine is
// suspended (to RAM, or a VM frozen by its host), while the server's clock,
// and so the lease, run on: after such a suspend, the monotonic clock alone
// would trust a lease etcd expired long ago. So the trust also ends once
// the wall clock passes until, and the timer never sleeps longer than
// wallCheck(TTL): after a resume, dead closes within that, and err (which
// Permit.Err and Permit.Done call) sees the loss at once. A wall clock
// stepped forward ends the trust early, which is safe; one stepped back is
// caught by the monotonic clock.
type lease struct {
	id   clientv3.LeaseID
	ttl  time.Duration   // as the server granted it
	hook *testHook       // moves the wall clock in the tests; nil otherwise
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

// wallCheck is the longest the trust's timer sleeps: a twelfth of the TTL,
// so that a lease that ran out on the wall clock while the monotonic clock
// stood still (a suspend) ends within that of the resume.
func wallCheck(ttl time.Duration) time.Duration { return ttl / 12 }

// newLease starts trusting the lease id, granted for ttl by a request sent
// at sent. expired is the cause recorded if the trust ends by running out.
func newLease(parent context.Context, id clientv3.LeaseID, ttl time.Duration, sent time.Time, expired error, hook *testHook) *lease {
	return trustUntil(parent, id, ttl, sent.Add(ttl-safetyMargin(ttl)), expired, hook)
}

// trustUntil starts trusting the lease id until until.
func trustUntil(parent context.Context, id clientv3.LeaseID, ttl time.Duration, until time.Time, expired error, hook *testHook) *lease {
	l := &lease{id: id, ttl: ttl, hook: hook, dead: make(chan struct{}), until: until, expired: expired}
	l.ctx, l.cancel = context.WithCancel(parent)
	l.mu.Lock() // the timer may fire before l.timer is set
	defer l.mu.Unlock()
	l.timer = time.AfterFunc(l.sleep(), l.expire)
	return l
}

// sleep is how long the timer sleeps before it looks at both clocks again;
// l.mu must be held.
func (l *lease) sleep() time.Duration {
	return min(time.Until(l.until), wallCheck(l.ttl))
}

// view returns one handle's view of l: the same lease, trusted until the
// same moment and refreshed with l (see Session.refreshed), but ended on
// its own, so that closing one handle ends no other. Its context ends
// with l's. If l is no longer trusted, neither is the view, for expired.
func (l *lease) view(expired error) *lease {
	l.mu.Lock()
	until, trusted := l.until, l.cause == nil
	l.mu.Unlock()
	v := trustUntil(l.ctx, l.id, l.ttl, until, expired, l.hook)
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
	l.timer.Reset(l.sleep())
}

// expire ends the trust if its time has come (a refresh may have moved it
// while the timer fired), and otherwise sleeps again.
func (l *lease) expire() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.expireLocked() {
		l.timer.Reset(l.sleep())
	}
}

// expireLocked ends the trust if either clock has passed until, and
// reports whether the trust has ended.
func (l *lease) expireLocked() bool {
	if l.cause == nil && (!time.Now().Before(l.until) || !l.hook.wallNow().Before(l.until.Round(0))) {
		l.endLocked(l.expired)
	}
	return l.cause != nil
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
