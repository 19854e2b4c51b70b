package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// batonBar is the sushi bar by passing the baton: a woken customer holds
// the mutex its waker kept for it, counts itself in, and wakes the next
// waiter with the mutex, or gives the mutex back.
type batonBar struct {
	mutex, block    sem.Semaphore
	eating, waiting int
	mustWait        bool
}

func newBatonBar(n check.NewSemaphore) judge.SushiBar {
	return &batonBar{mutex: n(1, 1), block: n(1, 0)}
}

func (b *batonBar) Eat(ctx context.Context, eat func()) error {
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	if b.mustWait {
		b.waiting++
		b.mutex.Release(1)
		if err := b.block.Acquire(ctx, 1); err != nil { // wakes holding the mutex
			return err
		}
		b.waiting--
	}
	b.eating++
	b.mustWait = b.eating == judge.SushiSeats
	b.pass()
	eat()
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	b.eating--
	if b.eating == 0 {
		b.mustWait = false
	}
	b.pass()
	return nil
}

// pass wakes a waiter with the mutex if one may sit, or gives it back.
func (b *batonBar) pass() {
	if b.waiting > 0 && !b.mustWait {
		b.block.Release(1)
		return
	}
	b.mutex.Release(1)
}

// seatsOnly is a multiplex of five seats: a customer sits as soon as any
// seat is free.
type seatsOnly struct{ seats sem.Semaphore }

func (b seatsOnly) Eat(ctx context.Context, eat func()) error {
	if err := b.seats.Acquire(ctx, 1); err != nil {
		return err
	}
	eat()
	b.seats.Release(1)
	return nil
}

func TestSushiBar(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.SushiBar
	judgeAll(t, judge.Problem22,
		official(func(n check.NewSemaphore) judge.SushiBar { return solutions.NewSushiBar(n) },
			check.Right[solution]{Name: "PassTheBaton", Solution: newBatonBar}),
		check.Wrong[solution]{
			Name:     "SeatsOnly",
			Solution: func(n check.NewSemaphore) judge.SushiBar { return seatsOnly{n(5, 5)} },
			Want:     "a full bar must empty before anyone sits",
		})
}
