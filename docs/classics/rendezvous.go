package classics

import (
	"context"

	"github.com/semacat/sem/weighted"
)

// Rendezvous makes two goroutines, A and B, wait for each other: neither
// returns from its call before the other has made its own. What each did
// before the call happens before what the other does after it.
//
// Two semaphores of one permit, both starting with none free
// (weighted.NewAvailable(1, 0)), say "A has arrived" and "B has arrived".
// Each side first announces its arrival (Release) and then waits for the
// other's (Acquire). The order matters: if both waited first, each would
// wait for an announcement the other never makes, a deadlock.
//
// A Rendezvous serves one meeting; make a new one for the next. A second
// arrival of the same side panics, as a release beyond what is held.
type Rendezvous struct {
	aArrived *weighted.Semaphore
	bArrived *weighted.Semaphore
}

// NewRendezvous returns a rendezvous that neither side has reached.
func NewRendezvous() *Rendezvous {
	return &Rendezvous{aArrived: weighted.NewAvailable(1, 0), bArrived: weighted.NewAvailable(1, 0)}
}

// A is side A's arrival: it returns once B has arrived too, or with
// ctx.Err() if ctx is done first (A's arrival stays announced).
func (r *Rendezvous) A(ctx context.Context) error { return meet(ctx, r.aArrived, r.bArrived) }

// B is side B's arrival: it returns once A has arrived too, or with
// ctx.Err() if ctx is done first (B's arrival stays announced).
func (r *Rendezvous) B(ctx context.Context) error { return meet(ctx, r.bArrived, r.aArrived) }

// meet announces one side's arrival, then waits for the other's.
func meet(ctx context.Context, mine, theirs *weighted.Semaphore) error {
	mine.Release(1)
	return theirs.Acquire(ctx, 1)
}
