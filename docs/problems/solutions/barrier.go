package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// Barrier makes n goroutines wait for each other once: none returns from
// Wait before all n have called it. A Wait that fails on its context
// leaves the barrier broken.
type Barrier struct {
	n         int
	mutex     sem.Semaphore // one permit: guards arrived
	arrived   int
	turnstile sem.Semaphore // closed until the last arrives
}

// NewBarrier returns a barrier for n goroutines.
func NewBarrier(newSemaphore NewSemaphore, n int) *Barrier {
	return &Barrier{n: n, mutex: newSemaphore(1, 1), turnstile: newSemaphore(1, 0)}
}

// Wait returns once all n goroutines have called Wait.
func (b *Barrier) Wait(ctx context.Context) error {
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	b.arrived++
	if b.arrived == b.n {
		b.turnstile.Release(1) // open it for the first waiter
	}
	b.mutex.Release(1)
	if err := b.turnstile.Acquire(ctx, 1); err != nil {
		return err
	}
	b.turnstile.Release(1) // and each one through opens it for the next
	return nil
}

// ReusableBarrier makes n goroutines wait for each other round after
// round. A Wait that fails on its context leaves the barrier broken.
//
// Each round has two phases, each closed by its own gate. A gate is a
// semaphore of n permits that starts with none free: the goroutine that
// completes a phase releases all n, and each goroutine through keeps one,
// so that after n passes the gate is shut again. Everyone passes the entry
// gate before the last of them opens the exit gate, and everyone passes the
// exit gate before the last of them opens the entry gate of the next
// round, so a fast goroutine can never take a permit meant for a slow one.
type ReusableBarrier struct {
	n      int64
	mutex  sem.Semaphore // one permit: guards inside
	inside int64         // goroutines between the gates
	entry  sem.Semaphore
	exit   sem.Semaphore
}

// NewReusableBarrier returns a reusable barrier for n goroutines.
func NewReusableBarrier(newSemaphore NewSemaphore, n int) *ReusableBarrier {
	return &ReusableBarrier{
		n:     int64(n),
		mutex: newSemaphore(1, 1),
		entry: newSemaphore(int64(n), 0),
		exit:  newSemaphore(int64(n), 0),
	}
}

// Wait returns once all n goroutines have called Wait in this round.
func (b *ReusableBarrier) Wait(ctx context.Context) error {
	if err := b.phase(ctx, 1, b.n, b.entry); err != nil {
		return err
	}
	return b.phase(ctx, -1, 0, b.exit)
}

// phase counts the caller in (delta 1) or out (delta -1); the one that
// brings the count to last opens gate for all n. Then it passes gate.
func (b *ReusableBarrier) phase(ctx context.Context, delta, last int64, gate sem.Semaphore) error {
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	b.inside += delta
	if b.inside == last {
		gate.Release(b.n)
	}
	b.mutex.Release(1)
	return gate.Acquire(ctx, 1)
}
