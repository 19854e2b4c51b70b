package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

func TestRollerCoaster(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.Coaster
	judgeAll(t, judge.Problem23,
		official(func(n check.NewSemaphore) judge.Coaster { return solutions.NewCoaster(n, judge.CarSeats) },
			check.Right[solution]{Name: "WeightedWaits", Solution: newHeavyCoaster}),
		check.Wrong[solution]{
			Name: "RunsBeforeAllAboard", // allAboard starts signalled
			Solution: func(n check.NewSemaphore) judge.Coaster {
				return solutions.NewCoaster(remade(n, 4, 1, 1), judge.CarSeats)
			},
			Want: "seats taken",
		},
		check.Wrong[solution]{
			Name: "UnboardAnyTime", // unboardQueue starts with every seat's permit
			Solution: func(n check.NewSemaphore) judge.Coaster {
				return solutions.NewCoaster(remade(n, 3, judge.CarSeats, judge.CarSeats), judge.CarSeats)
			},
			Want: "unboard 0 while the car is",
		})
}

// heavyCoaster is the roller coaster whose car waits for its passengers
// with one weighted Acquire each way, instead of counting them under a
// mutex.
type heavyCoaster struct{ boardQueue, aboard, unboardQueue, ashore sem.Semaphore }

func newHeavyCoaster(n check.NewSemaphore) judge.Coaster {
	c := int64(judge.CarSeats)
	return heavyCoaster{n(c, 0), n(c, 0), n(c, 0), n(c, 0)}
}

func (c heavyCoaster) Car(ctx context.Context, load, run, unload func()) error {
	for {
		load()
		c.boardQueue.Release(judge.CarSeats)
		if err := c.aboard.Acquire(ctx, judge.CarSeats); err != nil {
			return err
		}
		run()
		unload()
		c.unboardQueue.Release(judge.CarSeats)
		if err := c.ashore.Acquire(ctx, judge.CarSeats); err != nil {
			return err
		}
	}
}

func (c heavyCoaster) Passenger(ctx context.Context, board, unboard func()) error {
	if err := c.boardQueue.Acquire(ctx, 1); err != nil {
		return err
	}
	board()
	c.aboard.Release(1)
	if err := c.unboardQueue.Acquire(ctx, 1); err != nil {
		return err
	}
	unboard()
	c.ashore.Release(1)
	return nil
}
