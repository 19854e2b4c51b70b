package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// SushiSeats is how many seats the sushi bar has.
const SushiSeats = 5

// SushiBar seats up to SushiSeats; a customer who finds every seat taken
// waits until the whole party has left, and then the waiting customers
// sit down together.
//
// The mutex guards the counts. A customer who must wait counts itself in
// waiting and sleeps on block. The last diner to leave a full bar does the
// waiting customers' work for them: it counts up to SushiSeats of them as
// eating, decides whether the bar is full again, and wakes exactly that
// many, so that nobody who arrives meanwhile can take their seats.
type SushiBar struct {
	mutex    sem.Semaphore // one permit: guards the counts
	block    sem.Semaphore // customers who wait for a full bar to empty
	eating   int
	waiting  int
	mustWait bool // the bar is full, or still emptying
}

// NewSushiBar returns an empty bar.
func NewSushiBar(newSemaphore NewSemaphore) *SushiBar {
	return &SushiBar{mutex: newSemaphore(1, 1), block: newSemaphore(SushiSeats, 0)}
}

// Eat takes a seat, or waits for the next party, and calls eat.
func (b *SushiBar) Eat(ctx context.Context, eat func()) error {
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	if b.mustWait {
		b.waiting++
		b.mutex.Release(1)
		if err := b.block.Acquire(ctx, 1); err != nil { // counted as eating by whoever woke us
			return err
		}
	} else {
		b.eating++
		b.mustWait = b.eating == SushiSeats
		b.mutex.Release(1)
	}
	eat()
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	defer b.mutex.Release(1)
	b.eating--
	if b.eating == 0 {
		n := min(SushiSeats, b.waiting)
		b.waiting -= n
		b.eating += n
		b.mustWait = b.eating == SushiSeats
		if n > 0 {
			b.block.Release(int64(n))
		}
	}
	return nil
}
