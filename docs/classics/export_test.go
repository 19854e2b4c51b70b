package classics

import (
	"context"

	"github.com/semacat/sem/chansem"
)

// SetAfterOpen makes f run in the goroutine that opens one of b's
// turnstiles, between opening and passing it.
func SetAfterOpen(b *Barrier, f func()) { b.afterOpen = f }

// OneTurnstile is the reusable barrier the textbooks try first and reject:
// a single turnstile, whose opener resets the count for the next round.
// The tests show it failing on every strategy.
type OneTurnstile struct {
	n         int64
	mu        *chansem.Semaphore // one permit: guards count
	count     int64
	t         turnstile
	afterOpen func()
}

// NewOneTurnstile returns a single-turnstile barrier for n goroutines;
// afterOpen runs in the opener between opening and passing.
func NewOneTurnstile(n int, newAvailable NewAvailableFunc, afterOpen func()) *OneTurnstile {
	return &OneTurnstile{n: int64(n), mu: chansem.New(1), t: turnstile{newAvailable(int64(n), 0)}, afterOpen: afterOpen}
}

// Wait is Barrier.Wait with one turnstile; it gives up when ctx is done.
func (b *OneTurnstile) Wait(ctx context.Context) error {
	b.mu.Lock()
	b.count++
	opened := b.count == b.n
	if opened {
		b.count = 0
		b.t.open()
	}
	b.mu.Unlock()
	if opened {
		b.afterOpen()
	}
	return b.t.s.Acquire(ctx, 1)
}
