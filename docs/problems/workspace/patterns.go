package workspace

import (
	"context"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
)

// Problem 1: Send signals Wait.
type Signal struct{}

// NewSignal returns a signal not yet sent.
func NewSignal(newSemaphore check.NewSemaphore) *Signal { return &Signal{} }

// Send signals.
func (s *Signal) Send() {}

// Wait waits until Send has been called.
func (s *Signal) Wait(ctx context.Context) error { return todo(1) }

// Problem 2: A and B each wait for the other.
type Rendezvous struct{}

// NewRendezvous returns a rendezvous nobody has come to.
func NewRendezvous(newSemaphore check.NewSemaphore) *Rendezvous { return &Rendezvous{} }

// A arrives and waits for B.
func (r *Rendezvous) A(ctx context.Context) error { return todo(2) }

// B arrives and waits for A.
func (r *Rendezvous) B(ctx context.Context) error { return todo(2) }

// Problems 3 and 4: at most seats goroutines run critical at once (one,
// for the mutex of problem 3).
type Multiplex struct{ problem int }

// NewMultiplex returns a room of seats seats.
func NewMultiplex(newSemaphore check.NewSemaphore, seats int) *Multiplex {
	if seats == 1 {
		return &Multiplex{problem: 3}
	}
	return &Multiplex{problem: 4}
}

// Do runs critical in a seat.
func (m *Multiplex) Do(ctx context.Context, critical func()) error { return todo(m.problem) }

// Problems 5 and 6: Wait returns once all n have called it, once
// (problem 5) or round after round (problem 6).
type Barrier struct{}

// NewBarrier returns a barrier for n goroutines (problem 5).
func NewBarrier(newSemaphore check.NewSemaphore, n int) *Barrier { return &Barrier{} }

// Wait waits for all n.
func (b *Barrier) Wait(ctx context.Context) error { return todo(5) }

// ReusableBarrier is problem 6.
type ReusableBarrier struct{}

// NewReusableBarrier returns a reusable barrier for n goroutines.
func NewReusableBarrier(newSemaphore check.NewSemaphore, n int) *ReusableBarrier {
	return &ReusableBarrier{}
}

// Wait waits for all n, in every round.
func (b *ReusableBarrier) Wait(ctx context.Context) error { return todo(6) }

// Problem 7: leaders and followers dance in pairs, one pair at a time.
type Queue struct{}

// NewQueue returns an empty dance floor.
func NewQueue(newSemaphore check.NewSemaphore) *Queue { return &Queue{} }

// Leader waits for a follower and dances.
func (q *Queue) Leader(ctx context.Context, dance func()) error { return todo(7) }

// Follower waits for a leader and dances.
func (q *Queue) Follower(ctx context.Context, dance func()) error { return todo(7) }

// Problem 8: the first goroutine in locks room, the last out unlocks it.
type Lightswitch struct{}

// NewLightswitch returns a switch with nobody inside.
func NewLightswitch(newSemaphore check.NewSemaphore) *Lightswitch { return &Lightswitch{} }

// Lock comes in, locking room if first.
func (l *Lightswitch) Lock(ctx context.Context, room sem.Semaphore) error { return todo(8) }

// Unlock goes out, unlocking room if last.
func (l *Lightswitch) Unlock(ctx context.Context, room sem.Semaphore) error { return todo(8) }
