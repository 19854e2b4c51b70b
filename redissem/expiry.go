package redissem

import (
	"fmt"
	"time"
)

// A grant stops being trusted at its end of validity, whatever the handle's
// goroutines are doing then. Two things close its Done channel on time:
//
//   - The handle's expiry timer, which fires at the earliest end of validity
//     among its grants. It runs on its own, not in the refresher, so a
//     refresh stuck in a round trip on a cut connection cannot hold it back.
//     One timer serves every grant of the handle, so a grant costs no timer
//     of its own; when it fires it ends what is due and rearms for the rest.
//   - Err and Done themselves compare the clock with the end of validity.
//     A process resuming from a pause longer than its lease may run its
//     holder's check before the runtime gets to the overdue timer; the
//     check must already see the grant as lost.

// startExpiry creates the handle's expiry timer, unarmed.
func (s *Semaphore) startExpiry() {
	s.expiry = time.AfterFunc(time.Hour, s.expireDue)
	s.expiry.Stop()
}

// armExpiry makes the expiry timer fire at at, unless it fires earlier
// already; s.mu must be held.
func (s *Semaphore) armExpiry(at time.Time) {
	if s.expiryAt.IsZero() || at.Before(s.expiryAt) {
		s.expiryAt = at
		s.expiry.Reset(time.Until(at))
	}
}

// expireDue runs when the expiry timer fires: it ends every grant whose
// validity is over and rearms the timer for the earliest of the others.
// Refreshes push validity back, so a grant is often found still valid.
func (s *Semaphore) expireDue() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.expiryAt = time.Time{}
	now := time.Now()
	for _, g := range s.grants {
		if !s.expireIfDue(g, now) && g.err == nil {
			s.armExpiry(g.valid)
		}
	}
}

// expireIfDue ends g with ErrLeaseLost if its validity is over at now, and
// reports whether it did; s.mu must be held.
func (s *Semaphore) expireIfDue(g *grant, now time.Time) bool {
	if g.err != nil || now.Before(g.valid) {
		return false
	}
	g.end(fmt.Errorf("%s: %d permits of %q (token %d): %w: no refresh got through within the lease, less a margin of %v",
		pkg, g.n, s.name, g.token, ErrLeaseLost, s.margin))
	return true
}
