package redissem

import (
	"context"
	"fmt"
	"time"
)

// Permit is one acquisition of a semaphore, held until its Release, with the
// fencing token that lets a protected resource tell a current holder from a
// stale one, and a Done channel that says when the holder can no longer be
// sure Redis still holds it.
//
// A holder is a lease. A process paused or cut off from Redis for longer
// than its lease comes back still believing it holds its permits, while
// Redis has reaped its grant and admitted someone else. Done closes before
// that can happen, as long as the holder's clock keeps pace with the
// server's; but a pause can fall between a check of Done and the act, so
// where the resource can check the token, it should. With size 1, the
// resource keeps the highest token it has seen and rejects lower ones.
type Permit struct {
	s *Semaphore
	g *grant // nil for a Permit of 0 permits
}

// AcquirePermit is Acquire returning the acquisition as a [Permit], released
// by [Permit.Release] and never by [Semaphore.Release]. It blocks, fails and
// panics exactly as Acquire does; like Acquire, it gives back a grant it
// learns of after its lease may have run out and waits on, so Done is
// open when it returns a Permit. For n == 0 it returns a Permit that holds
// nothing, with token 0 and a Done channel that never closes, unless ctx is
// done or the handle closed.
func (s *Semaphore) AcquirePermit(ctx context.Context, n int64) (*Permit, error) {
	checkWeight("AcquirePermit", n)
	if n == 0 {
		if err := s.acquireNothing(ctx); err != nil {
			return nil, err
		}
		return &Permit{s: s}, nil
	}
	g, err := s.acquire(ctx, "AcquirePermit", n, true)
	if err != nil {
		return nil, err
	}
	return &Permit{s: s, g: g}, nil
}

// Token returns the fencing token: it strictly increases in grant order
// across every handle on the semaphore, Redis restarts and failovers
// included (see the package documentation for the assumption on the
// server's clock).
func (p *Permit) Token() int64 {
	if p.g == nil {
		return 0
	}
	return p.g.token
}

// Weight returns the number of permits the Permit was acquired with.
func (p *Permit) Weight() int64 {
	if p.g == nil {
		return 0
	}
	return p.g.n
}

// Done returns a channel closed as soon as the holder can no longer be sure
// that Redis holds the Permit's lease: at the send time of the last refresh
// that succeeded (at first, of the last request Redis answered before the
// grant) plus the lease, minus the margin the package documentation states;
// or at once when a refresh finds the grant gone. It is closed on time even
// while a refresh is stuck on a cut connection, and a call to Done or Err
// after a pause past that time finds it closed. It is also closed by
// Release and by the handle's Close. Err says which.
func (p *Permit) Done() <-chan struct{} {
	done, _ := p.state()
	return done
}

// Err returns nil while Done is open. Then it returns an error wrapping
// ErrLeaseLost if the lease ran out or Redis no longer holds the grant,
// ErrReleased after Release, or ErrClosed after the handle's Close.
func (p *Permit) Err() error {
	_, err := p.state()
	return err
}

// state returns what Done and Err do, once it has expired the grant if its
// validity has ended by now: so a call after a pause past that time never
// finds Done open. A Permit of 0 permits has neither.
func (p *Permit) state() (<-chan struct{}, error) {
	if p.g == nil {
		return nil, nil
	}
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	p.s.expireIfDue(p.g, time.Now())
	return p.g.done, p.g.err
}

// Release gives the Permit's permits back in one round trip, bounded by ctx
// and the handle's timeout, and closes Done. It returns an error wrapping
// ErrLeaseLost if Redis no longer held the grant (the permits were already
// someone else's to take). If Redis cannot be reached it returns that error
// and retries in the background, as [Semaphore.ReleaseErr] does. It panics if
// the Permit was released already.
func (p *Permit) Release(ctx context.Context) error {
	if p.g == nil {
		return nil
	}
	s, g := p.s, p.g
	s.mu.Lock()
	if g.released {
		s.mu.Unlock()
		panic(fmt.Sprintf("%s: Permit.Release: the permit (token %d) was released already", pkg, g.token))
	}
	g.released = true
	g.end(ErrReleased)
	closed, lost := s.closed, g.lost
	s.dropGrant(g)
	s.mu.Unlock()
	if closed {
		return nil // Close released it in Redis
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	return s.sendRelease(ctx, "Permit.Release", g.n, []any{g.id, -1}, []string{g.id}, lost)
}

// dropGrant removes g from the handle's books; s.mu must be held.
func (s *Semaphore) dropGrant(g *grant) {
	for i, h := range s.grants {
		if h == g {
			s.grants = append(s.grants[:i], s.grants[i+1:]...)
			return
		}
	}
}
