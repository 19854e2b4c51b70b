package solutions_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/solutions"
)

type barrier interface {
	Wait(ctx context.Context) error
}

const barrierSize = 5

// barrierProblem has barrierSize goroutines arrive at a barrier, at
// different times, rounds times in a row; after each Wait they pass.
// A bug that needs a slow opener and a fast loop meets one within a few
// rounds of a few seeds, so the reusable barrier gets more of both.
func barrierProblem(rounds, seeds int) check.Problem[func(solutions.NewSemaphore, int) barrier] {
	return check.Problem[func(solutions.NewSemaphore, int) barrier]{
		Seeds: seeds,
		Scenario: func(r *check.Run, newBarrier func(solutions.NewSemaphore, int) barrier) {
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

// oneThrough opens its turnstile for one goroutine, which does not pass it on.
type oneThrough struct {
	mutex, turnstile sem.Semaphore
	arrived, n       int
}

func (b *oneThrough) Wait(ctx context.Context) error {
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	b.arrived++
	if b.arrived == b.n {
		b.turnstile.Release(1)
	}
	b.mutex.Release(1)
	return b.turnstile.Acquire(ctx, 1)
}

func TestBarrier(t *testing.T) {
	type solution = func(solutions.NewSemaphore, int) barrier
	check.Judge(t, barrierProblem(1, seeds),
		func(ns solutions.NewSemaphore, n int) barrier { return solutions.NewBarrier(ns, n) },
		check.Wrong[solution]{
			Name: "TurnstileNotPassedOn",
			Solution: func(ns solutions.NewSemaphore, n int) barrier {
				return &oneThrough{mutex: ns(1, 1), turnstile: ns(1, 0), n: n}
			},
			Want: "deadlock",
		})
}

// oneGate is a reusable barrier with one gate: the last to arrive resets
// the count and opens the gate for n.
type oneGate struct {
	mutex, gate sem.Semaphore
	arrived, n  int64
}

func (b *oneGate) Wait(ctx context.Context) error {
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	b.arrived++
	if b.arrived == b.n {
		b.arrived = 0
		b.gate.Release(b.n)
	}
	b.mutex.Release(1)
	return b.gate.Acquire(ctx, 1)
}

func TestReusableBarrier(t *testing.T) {
	type solution = func(solutions.NewSemaphore, int) barrier
	check.Judge(t, barrierProblem(20, 2*seeds),
		func(ns solutions.NewSemaphore, n int) barrier { return solutions.NewReusableBarrier(ns, n) },
		check.Wrong[solution]{
			Name: "OneGate",
			Solution: func(ns solutions.NewSemaphore, n int) barrier {
				return &oneGate{mutex: ns(1, 1), gate: ns(int64(n), 0), n: int64(n)}
			},
			Want: "had arrived",
		},
		check.Wrong[solution]{
			Name: "SingleUseBarrier",
			Solution: func(ns solutions.NewSemaphore, n int) barrier {
				return solutions.NewBarrier(ns, n)
			},
			Want: "had arrived",
		})
}
