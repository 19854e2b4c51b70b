package redissem

import (
	"fmt"
	"time"
)

// refresher schedules the refreshes of the handles on the Session: each
// handle is refreshed on its own schedule, as its own refresher would do
// it, in a goroutine of its own while its round trip lasts. So a handle
// whose keys live on a slow or stalled Cluster master delays the refreshes
// of no other handle.
func (ss *Session) refresher() {
	defer ss.wg.Done()
	t := time.NewTimer(DefaultLease / 3)
	defer t.Stop()
	for {
		select {
		case <-ss.done:
			return
		case <-ss.kick:
		case <-t.C:
		}
		t.Reset(ss.round())
	}
}

// round starts the refresh of every handle that is due and has none on its
// way (a handle awaiting a retry is due within a twelfth of its lease),
// and returns how long until the next handle is due.
func (ss *Session) round() time.Duration {
	ss.mu.Lock()
	handles := ss.members()
	ss.mu.Unlock()
	now := time.Now()
	next := DefaultLease / 3
	for _, s := range handles {
		retry := s.retrying() // takes s.mu, which is never taken inside ss.mu
		ss.mu.Lock()
		switch {
		case s.refreshing:
		case retry && s.refreshDue.After(now.Add(s.lease/12)):
			s.refreshDue = now.Add(s.lease / 12)
			fallthrough
		case now.Before(s.refreshDue):
			next = min(next, s.refreshDue.Sub(now))
		case !ss.closed:
			s.refreshing = true
			ss.wg.Add(1)
			go ss.refresh(s)
		}
		ss.mu.Unlock()
	}
	return next
}

// refresh refreshes s once, as its own refresher would, and schedules its
// next refresh: after its interval, or a twelfth of its lease if the
// refresh failed or something awaits a retry.
func (ss *Session) refresh(s *Semaphore) {
	defer ss.wg.Done()
	next := s.interval()
	if err := s.refresh(); err != nil {
		s.report(fmt.Errorf("%s: refreshing leases on %q: %w", pkg, s.name, err))
		next = s.lease / 12
	} else if s.retrying() {
		next = s.lease / 12
	}
	ss.mu.Lock()
	s.refreshing, s.refreshDue = false, time.Now().Add(next)
	ss.mu.Unlock()
	ss.wake()
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
