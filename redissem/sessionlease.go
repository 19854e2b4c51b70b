package redissem

import (
	"fmt"
	"time"
)

// refresher runs the Session's refresh rounds: each refreshes every handle
// on it, as a handle's own refresher does for itself, and the next comes
// after the shortest interval any handle needs (a twelfth of its lease
// while one of its refreshes failed or something waits for a retry).
func (ss *Session) refresher() {
	defer ss.wg.Done()
	refreshAt := time.Now().Add(DefaultLease / 3)
	t := time.NewTimer(DefaultLease / 3)
	defer t.Stop()
	for {
		select {
		case <-ss.done:
			return
		case <-ss.kick:
			refreshAt = minTime(refreshAt, time.Now().Add(ss.retryInterval()))
		case <-t.C:
		}
		if !time.Now().Before(refreshAt) {
			refreshAt = time.Now().Add(ss.round())
		}
		t.Reset(time.Until(refreshAt))
	}
}

// round refreshes every handle on the Session once, and returns how long
// until the next round. When a refresh finds a grant gone, the grants of
// every handle end.
func (ss *Session) round() time.Duration {
	ss.mu.Lock()
	handles := ss.members()
	ss.mu.Unlock()
	next := DefaultLease / 3
	var lost []string
	for _, s := range handles {
		gone, err := s.refresh()
		switch {
		case err != nil:
			s.report(fmt.Errorf("%s: refreshing leases on %q: %w", pkg, s.name, err))
			next = min(next, s.lease/12)
		case s.retrying():
			next = min(next, s.lease/12)
		default:
			next = min(next, s.interval())
		}
		if gone {
			lost = append(lost, s.name)
		}
	}
	if len(lost) > 0 {
		cause := fmt.Sprintf("its session lost grants of %q", lost)
		for _, s := range handles {
			s.loseAll(cause)
		}
	}
	return next
}

// retryInterval is the shortest twelfth of a lease among the handles.
func (ss *Session) retryInterval() time.Duration {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	d := DefaultLease / 12
	for _, s := range ss.handles {
		d = min(d, s.lease/12)
	}
	return d
}

// wake makes the refresher reconsider when its next round is due.
func (ss *Session) wake() {
	select {
	case ss.kick <- struct{}{}:
	default:
	}
}

// armExpiry makes the Session's expiry timer fire at at, unless it fires
// earlier already. The handle's mu may be held: the Session
// takes no handle's mu while it holds its own.
func (ss *Session) armExpiry(at time.Time) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return
	}
	ss.expiry.arm(at)
}

// expireDue runs when the Session's expiry timer fires: every handle ends
// its grants whose validity is over and rearms the timer for the others.
func (ss *Session) expireDue() {
	ss.mu.Lock()
	ss.expiry.fired()
	handles := ss.members()
	ss.mu.Unlock()
	for _, s := range handles {
		s.expireDue()
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
