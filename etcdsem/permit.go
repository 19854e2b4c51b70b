package etcdsem

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Permit is one acquisition of a semaphore, held until its Release, with the
// fencing token that lets a protected resource tell a current holder from a
// stale one.
//
// # Why a token
//
// A holder is a lease. [Permit.Done] tells a holder that is cut off from
// etcd that it can no longer count on its permits, before etcd can hand
// them to anyone else. But a process paused (a long GC pause, a stopped VM)
// between checking Done and acting comes back still believing it holds its
// permits, while etcd has deleted its key and admitted someone else. No
// check the holder makes before acting closes this gap. The resource has to
// check.
//
// The token is the create revision of the permit's key in etcd: unique,
// never reused, and strictly increasing in grant order (keys are granted
// in the order of their places in the queue). Two ways to use it:
//
//   - The resource is etcd itself: put [Permit.Cmp] in the If of the
//     transaction that writes the protected data. The write happens only
//     while the permit's key still exists, that is, while it still holds.
//   - The resource is elsewhere (a database, a storage service) and the
//     semaphore has size 1 (a lock): send the token with every request; the
//     resource remembers the largest token it has seen and rejects smaller
//     ones. Holders of a size-1 semaphore are admitted in token order, so a
//     stale holder's token is always smaller than its successor's. For a
//     larger size, several holders are current at once and tokens do not
//     order them; the resource must then ask etcd whether the key still
//     exists (a Get of [Permit.Key] comparing the create revision with the
//     token), or the protected work must be made idempotent.
//
// Not every use needs this: if over-admission for the length of a pause only
// costs some extra load (a connection budget, a rate limit), the plain
// Acquire and Release are enough.
type Permit struct {
	s *Semaphore
	e *entry
	n int64
}

// AcquirePermit is Acquire returning the acquisition as a [Permit], released
// by [Permit.Release] and never by [Semaphore.Release]. It blocks, fails and
// panics exactly as Acquire does. For n == 0 it returns a Permit that holds
// nothing, with token 0, unless ctx is done or the handle closed.
func (s *Semaphore) AcquirePermit(ctx context.Context, n int64) (*Permit, error) {
	checkWeight("AcquirePermit", n)
	if n == 0 {
		if err := s.acquireNothing(ctx); err != nil {
			return nil, err
		}
		return &Permit{s: s}, nil
	}
	e, err := s.acquire(ctx, n, false)
	if err != nil {
		return nil, err
	}
	return &Permit{s: s, e: e, n: n}, nil
}

// Token returns the fencing token: the create revision of the permit's key,
// larger for every later place in the queue, and so for every later grant.
func (p *Permit) Token() int64 {
	if p.e == nil {
		return 0
	}
	return p.e.rev
}

// Weight returns the number of permits the Permit was acquired with.
func (p *Permit) Weight() int64 { return p.n }

// Key returns the permit's key in etcd.
func (p *Permit) Key() string {
	if p.e == nil {
		return ""
	}
	return p.e.key
}

// Cmp returns the comparison that holds in an etcd transaction exactly while
// the permit's key exists, that is, while the permit holds. Use it to fence
// writes to etcd: If(p.Cmp()).Then(your writes).
func (p *Permit) Cmp() clientv3.Cmp {
	return clientv3.Compare(clientv3.CreateRevision(p.Key()), "=", p.Token())
}

// Done returns a channel that is closed as soon as the holder can no longer
// be sure the permit holds: when the handle stops trusting its lease, or is
// closed. The handle trusts its lease until
//
//	sent + TTL - margin,  margin = TTL/10 + TTL/100
//
// where sent is when the last keep-alive that the server confirmed was
// sent (before its reply arrived; for a new handle, the lease's grant) and
// TTL the one the server granted. A tenth of the TTL is for the holder to
// stop, a hundredth for clock drift. The server cannot expire the lease
// before sent + TTL, so Done closes before etcd can admit anyone else to
// these permits, as long as the holder's clock runs no more than a
// hundredth slower than the server's. A holder cut off from etcd sees Done
// close within a TTL of the cut. A process paused past that moment finds,
// as soon as it calls Done or Err, Done closed and Err reporting the loss.
// The handle reads the wall clock as well as the monotonic one, which
// stops while the machine is suspended: after a suspend past that moment,
// Done and Err see the loss at once too, and Done closes by itself within
// a twelfth of the TTL of the resume. A keep-alive that finds the lease
// gone closes Done at once.
//
// All this assumes etcd ends a lease only when its TTL runs out, which
// etcd 3.6 does not always do: a leader whose process was paused (SIGSTOP,
// a frozen VM) for longer than a TTL, while the others elected a new
// leader that kept the lease alive, revokes on resuming every lease it
// believes expired before it learns it was deposed (etcd issue 15247: its
// fix skips the leadership check on a member that ticked in the last three
// ticks, as a member just resumed has). Such a revocation takes the keys
// of a holder that kept its lease alive; its Done closes only when its
// next keep-alive finds the lease gone, after others may have been
// admitted. The fencing token still protects the resource. Release does
// not close Done: it is the handle's lease, shared by all its permits. A
// Permit of weight 0 has the same Done.
func (p *Permit) Done() <-chan struct{} {
	_ = p.s.lease.err() // a trust that ran out while the process was paused ends now
	return p.s.lease.dead
}

// Err returns nil while the lease is trusted (Done is open, or about to
// close because the trust ran out this instant: Err then closes it). After,
// it returns why: an error wrapping [ErrLeaseLost] when the lease expired,
// was revoked or could not be refreshed in time, or [ErrClosed] when the
// handle was closed first.
func (p *Permit) Err() error { return p.s.lease.err() }

// Release gives the permit's permits back by deleting its key. It panics if
// the Permit was released already. It returns nil once the key is deleted;
// an error wrapping [ErrLeaseLost] if the key was already gone or the lease
// is no longer trusted (the permits may have been someone else's for a
// while); and the other errors, and the retries that follow them, of
// [Semaphore.ReleaseErr].
func (p *Permit) Release(ctx context.Context) error {
	if p.e == nil {
		return nil
	}
	s := p.s
	s.mu.Lock()
	if p.e.weight == 0 {
		s.mu.Unlock()
		overRelease(p.n, 0)
	}
	p.e.weight = 0
	s.mu.Unlock()
	return s.release(ctx, p.e)
}
