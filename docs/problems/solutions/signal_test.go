package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

func TestSignal(t *testing.T) {
	judgeAll(t, judge.Problem1,
		official(func(n check.NewSemaphore) judge.Signal { return solutions.NewSignal(n) }, check.Right[func(check.NewSemaphore) judge.Signal]{Name: "PassedOn", Solution: func(n check.NewSemaphore) judge.Signal { return passedOn{n(1, 0)} }}),
		check.Wrong[func(check.NewSemaphore) judge.Signal]{
			Name:     "StartsSent",
			Solution: func(n check.NewSemaphore) judge.Signal { return solutions.NewSignal(startFull(n)) },
			Want:     "before any a1 ended",
		})
}

// waitFirst waits for the other side before announcing itself.
type waitFirst struct{ aArrived, bArrived sem.Semaphore }

func (w waitFirst) A(ctx context.Context) error { return meet(ctx, w.bArrived, w.aArrived) }

func (w waitFirst) B(ctx context.Context) error { return meet(ctx, w.aArrived, w.bArrived) }

func meet(ctx context.Context, other, me sem.Semaphore) error {
	if err := other.Acquire(ctx, 1); err != nil {
		return err
	}
	me.Release(1)
	return nil
}

// announceOnly announces itself and goes on without waiting.
type announceOnly struct{ aArrived, bArrived sem.Semaphore }

func (w announceOnly) A(context.Context) error { w.aArrived.Release(1); return nil }

func (w announceOnly) B(context.Context) error { w.bArrived.Release(1); return nil }

func TestRendezvous(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.Rendezvous
	judgeAll(t, judge.Problem2,
		official(func(n check.NewSemaphore) judge.Rendezvous { return solutions.NewRendezvous(n) }, check.Right[solution]{Name: "AWaitsFirst", Solution: func(n check.NewSemaphore) judge.Rendezvous { return aWaitsFirst{n(1, 0), n(1, 0)} }}),
		check.Wrong[solution]{
			Name:     "BothWaitFirst",
			Solution: func(n check.NewSemaphore) judge.Rendezvous { return waitFirst{n(1, 0), n(1, 0)} },
			Want:     "deadlock",
		},
		check.Wrong[solution]{
			Name:     "NobodyWaits",
			Solution: func(n check.NewSemaphore) judge.Rendezvous { return announceOnly{n(1, 0), n(1, 0)} },
			Want:     "before any",
		})
}
