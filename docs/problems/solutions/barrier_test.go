package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

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
	type solution = func(check.NewSemaphore, int) judge.Barrier
	judgeAll(t, judge.Problem5,
		official(func(ns check.NewSemaphore, n int) judge.Barrier { return solutions.NewBarrier(ns, n) }, check.Right[solution]{Name: "OpenForAll", Solution: func(ns check.NewSemaphore, n int) judge.Barrier {
			return &openForAll{mutex: ns(1, 1), gate: ns(int64(n), 0), n: int64(n)}
		}}),
		check.Wrong[solution]{
			Name: "TurnstileNotPassedOn",
			Solution: func(ns check.NewSemaphore, n int) judge.Barrier {
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
	type solution = func(check.NewSemaphore, int) judge.Barrier
	judgeAll(t, judge.Problem6,
		official(func(ns check.NewSemaphore, n int) judge.Barrier { return solutions.NewReusableBarrier(ns, n) }, check.Right[solution]{Name: "TwoTurnstiles", Solution: func(ns check.NewSemaphore, n int) judge.Barrier { return newTwoTurnstiles(ns, n) }}),
		check.Wrong[solution]{
			Name: "OneGate",
			Solution: func(ns check.NewSemaphore, n int) judge.Barrier {
				return &oneGate{mutex: ns(1, 1), gate: ns(int64(n), 0), n: int64(n)}
			},
			Want: "had arrived",
		},
		check.Wrong[solution]{
			Name: "SingleUseBarrier",
			Solution: func(ns check.NewSemaphore, n int) judge.Barrier {
				return solutions.NewBarrier(ns, n)
			},
			Want: "had arrived",
		})
}
