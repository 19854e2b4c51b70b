package classics

import (
	"context"
	"fmt"

	"github.com/semacat/sem/chansem"
)

// Barrier makes a fixed number of goroutines wait for each other, round
// after round: the reusable barrier.
//
// It is built from turnstiles. A turnstile is a semaphore of n permits that
// starts closed, with none free (NewAvailable(n, 0) of any strategy); opening it
// releases n permits, and each goroutine that passes takes one and keeps
// it, so that after n passes the turnstile is closed again, by itself. The
// last goroutine to arrive opens the entry turnstile for everyone, the
// first n-1 having waited at it.
//
// One turnstile is not enough for a barrier used again and again, on any
// strategy, FIFO or not. The goroutine that opens the turnstile releases n
// permits, one for each of the n-1 goroutines waiting and one for itself,
// and the permit it left for itself is free for anyone to take. Should the
// scheduler stop the opener between opening and passing, a goroutine it
// woke can leave, loop around, arrive at the next round and pass on that
// permit, alone, while the round before has not finished. So Wait has two
// phases, each ending at its own turnstile: every goroutine passes the
// entry turnstile before the last of them opens the exit one, and every
// goroutine passes the exit turnstile before the last of them opens the
// entry one for the next round. A spare permit of either turnstile can
// only be taken by a goroutine of the same phase. The count of goroutines
// in a phase is guarded by a chansem semaphore of one permit, used as a
// lock.
type Barrier struct {
	n     int64
	mu    *chansem.Semaphore // one permit: guards count
	count int64              // goroutines in the current phase
	entry turnstile
	exit  turnstile

	// afterOpen, set only by tests, runs in the goroutine that opened a
	// turnstile, between opening and passing it: where the scheduler may
	// stop it for a while.
	afterOpen func()
}

// NewAvailableFunc builds a semaphore of size permits of which available
// are free, like the NewAvailable constructors of the strategies.
type NewAvailableFunc func(size, available int64) Sized

// NewBarrier returns a barrier for n goroutines whose turnstiles are built
// by newAvailable. It panics if n is less than 1.
func NewBarrier(n int, newAvailable NewAvailableFunc) *Barrier {
	if n < 1 {
		panic(fmt.Sprintf("classics: NewBarrier: %d goroutines, want at least 1", n))
	}
	return &Barrier{
		n:     int64(n),
		mu:    chansem.New(1),
		entry: turnstile{newAvailable(int64(n), 0)},
		exit:  turnstile{newAvailable(int64(n), 0)},
	}
}

// Wait returns once all n goroutines of the current round have called it.
// Exactly n goroutines must call Wait in every round; the barrier then
// starts the next round by itself.
func (b *Barrier) Wait() {
	b.arrive(1, b.n, b.entry)
	b.entry.pass()
	b.arrive(-1, 0, b.exit)
	b.exit.pass()
}

// arrive counts the caller into (delta 1) or out of (delta -1) the
// current phase; the one that brings the count to last opens t for
// everyone.
func (b *Barrier) arrive(delta, last int64, t turnstile) {
	b.mu.Lock()
	b.count += delta
	opened := b.count == last
	if opened {
		t.open()
	}
	b.mu.Unlock()
	if opened && b.afterOpen != nil {
		b.afterOpen()
	}
}

// turnstile lets through as many goroutines as it was opened for, then is
// closed again.
type turnstile struct{ s Sized }

// open lets the next Size goroutines pass.
func (t turnstile) open() { t.s.Release(t.s.Size()) }

// pass waits until the turnstile is open and takes one passage. The
// permit is never given back: the opener gives them all at once.
func (t turnstile) pass() {
	// Cannot fail: the context is never done and 1 is at most the size.
	_ = t.s.Acquire(context.Background(), 1)
}
