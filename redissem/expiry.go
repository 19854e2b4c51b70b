package redissem

import (
	"fmt"
	"slices"
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
//
// Both read two clocks. Go's timers and time.Since run on the monotonic
// clock, which stops while the machine is suspended (to RAM, or a VM
// frozen by its host), while the server's clock and the lease run on. So a
// grant also ends once the wall clock passes its end of validity, and the
// timer never sleeps longer than a twelfth of the lease while the handle
// holds a grant: after a resume, Done closes within that twelfth, and Err
// and Done see the grant lost at once. A wall clock stepped forward ends
// grants early, which is safe; one stepped back is caught by the monotonic
// clock.

// An expiryTimer runs a function at the earliest time it was armed for
// since it last fired. Its owner's mu guards it.
type expiryTimer struct {
	t  *time.Timer
	at time.Time // when t fires; zero when unarmed
}

// start creates the timer, unarmed, to run f.
func (e *expiryTimer) start(f func()) {
	e.t = time.AfterFunc(time.Hour, f)
	e.t.Stop()
}

// arm makes the timer fire at at, unless it fires earlier already.
func (e *expiryTimer) arm(at time.Time) {
	if e.at.IsZero() || at.Before(e.at) {
		e.at = at
		e.t.Reset(time.Until(at))
	}
}

// fired records that the timer fired: it is unarmed until armed again.
func (e *expiryTimer) fired() { e.at = time.Time{} }

// stop stops the timer, if it was started.
func (e *expiryTimer) stop() {
	if e.t != nil {
		e.t.Stop()
	}
}

// startExpiry creates the handle's expiry timer, unarmed. A handle on a
// Session has none: the Session's timer serves every handle on it.
func (s *Semaphore) startExpiry() {
	if s.session != nil {
		return
	}
	s.expiry.start(s.expireDue)
}

// armExpiry makes the expiry timer fire at at, or within a twelfth of the
// lease if that is sooner, unless it fires earlier already; s.mu must be
// held. On a Session, it arms the Session's timer.
func (s *Semaphore) armExpiry(at time.Time) {
	if check := time.Now().Add(s.lease / 12); check.Before(at) {
		at = check
	}
	if s.session != nil {
		s.session.armExpiry(at)
		return
	}
	s.expiry.arm(at)
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
	s.expiry.fired()
	now := time.Now()
	for _, g := range slices.Clone(s.grants) { // expireIfDue may drop g
		if !s.expireIfDue(g, now) && g.err == nil {
			s.armExpiry(g.valid)
		}
	}
}

// expireIfDue ends g with ErrLeaseLost if its validity is over at now, and
// reports whether it did; s.mu must be held.
func (s *Semaphore) expireIfDue(g *grant, now time.Time) bool {
	if g.err != nil || !s.expiredAt(g, now) {
		return false
	}
	g.end(fmt.Errorf("%s: %d permits of %q (token %d): %w: no refresh got through within the lease, less a margin of %v",
		pkg, g.n, s.name, g.token, ErrLeaseLost, s.margin))
	s.giveUp(g)
	return true
}

// expiredAt reports whether g's validity is over at now, by the monotonic
// clock or by the wall clock; s.mu must be held.
func (s *Semaphore) expiredAt(g *grant, now time.Time) bool {
	return !now.Before(g.valid) || !s.wallNow().Before(g.valid.Round(0))
}

// giveUp stops refreshing g, whose holder was told it lost it, and has the
// refresher release it in Redis: a lease may still run there (the refresh
// was only late, or the clock stepped), and a holder that returns on Done
// without a Release must not leave it held. A Permit's grant leaves the
// books too, since nothing else refers to it; a Release of it then finds
// it lost. s.mu must be held.
func (s *Semaphore) giveUp(g *grant) {
	g.lost = true
	if s.closed {
		return
	}
	s.pending[g.id] = struct{}{}
	if g.permit {
		s.dropGrant(g)
	}
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// wallNow reads the wall clock (the tests can move it alone, as a suspend
// does); compared with a time stripped of its monotonic reading, it goes by
// the wall clock only.
func (s *Semaphore) wallNow() time.Time {
	if s.hooks != nil && s.hooks.wallClock != nil {
		return s.hooks.wallClock()
	}
	return time.Now()
}
