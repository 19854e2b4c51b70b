package judge

import (
	"context"
	"fmt"
	"time"

	"github.com/semacat/sem/docs/problems/check"
)

// Barrier is what problems 5 and 6 ask for: Wait returns once all n have
// called it (in every round, for problem 6).
type Barrier interface {
	Wait(ctx context.Context) error
}

const barrierSize = 5

// barrierProblem has barrierSize goroutines arrive at a barrier, at
// different times, rounds times in a row; after each Wait they pass.
// A bug that needs a slow opener and a fast loop meets one within a few
// rounds of a few seeds, so the reusable barrier gets more of both.
func barrierProblem(rounds, seeds int) check.Problem[func(check.NewSemaphore, int) Barrier] {
	return check.Problem[func(check.NewSemaphore, int) Barrier]{
		Seeds:    seeds,
		Laggards: true,
		Scenario: func(r *check.Run, newBarrier func(check.NewSemaphore, int) Barrier) {
			b := newBarrier(r.NewSemaphore, barrierSize)
			for i := range barrierSize {
				who := name("goroutine", i)
				r.Go(who, func(ctx context.Context) error {
					return each(rounds, func(round int) error {
						r.Sleep(time.Duration(r.Rand(3)) * check.Tick)
						r.Record(who, "arrive", round)
						if err := b.Wait(ctx); err != nil {
							return err
						}
						r.Act(who, "pass", round)
						return nil
					})
				})
			}
		},
		Rules: everyoneArrivesBeforeAnyonePasses,
	}
}

// everyoneArrivesBeforeAnyonePasses: in every round, nobody passes before
// all have arrived.
func everyoneArrivesBeforeAnyonePasses(log []check.Event) error {
	arrived := map[int]int{}
	for _, e := range log {
		switch {
		case e.What == "arrive":
			arrived[e.N]++
		case e.What == "pass" && !e.End && arrived[e.N] < barrierSize:
			return fmt.Errorf("%v when only %d of %d had arrived in round %d", e, arrived[e.N], barrierSize, e.N)
		}
	}
	return nil
}
