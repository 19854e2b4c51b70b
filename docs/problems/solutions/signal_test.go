package solutions_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/solutions"
)

type signal interface {
	Send()
	Wait(ctx context.Context) error
}

// A does a1 and signals; B waits for the signal and does b1. A starts a
// little late, so that B reaches its wait first.
var signalProblem = check.Problem[func(solutions.NewSemaphore) signal]{
	Seeds: seeds,
	Scenario: func(r *check.Run, newSignal func(solutions.NewSemaphore) signal) {
		s := newSignal(r.NewSemaphore)
		r.Go("A", func(context.Context) error {
			r.Sleep(time.Duration(1+r.Rand(3)) * check.Tick)
			r.Act("A", "a1", 0)
			s.Send()
			return nil
		})
		r.Go("B", func(ctx context.Context) error {
			if err := s.Wait(ctx); err != nil {
				return err
			}
			r.Act("B", "b1", 0)
			return nil
		})
	},
	Rules: func(log []check.Event) error { return check.After(log, "b1", "a1") },
}

func TestSignal(t *testing.T) {
	check.Judge(t, signalProblem,
		func(n solutions.NewSemaphore) signal { return solutions.NewSignal(n) },
		check.Wrong[func(solutions.NewSemaphore) signal]{
			Name:     "StartsSent",
			Solution: func(n solutions.NewSemaphore) signal { return solutions.NewSignal(startFull(n)) },
			Want:     "before any a1 ended",
		})
}

type rendezvous interface {
	A(ctx context.Context) error
	B(ctx context.Context) error
}

// A does a1, meets B, does a2; B does b1, meets A, does b2. Either may be
// late.
var rendezvousProblem = check.Problem[func(solutions.NewSemaphore) rendezvous]{
	Seeds: seeds,
	Scenario: func(r *check.Run, newRendezvous func(solutions.NewSemaphore) rendezvous) {
		rv := newRendezvous(r.NewSemaphore)
		side := func(who, before, after string, meet waitFn) {
			r.Go(who, func(ctx context.Context) error {
				r.Sleep(time.Duration(r.Rand(3)) * check.Tick)
				r.Act(who, before, 0)
				if err := meet(ctx); err != nil {
					return err
				}
				r.Act(who, after, 0)
				return nil
			})
		}
		side("A", "a1", "a2", rv.A)
		side("B", "b1", "b2", rv.B)
	},
	Rules: func(log []check.Event) error {
		return errors.Join(check.After(log, "a2", "b1"), check.After(log, "b2", "a1"))
	},
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
	type solution = func(solutions.NewSemaphore) rendezvous
	check.Judge(t, rendezvousProblem,
		func(n solutions.NewSemaphore) rendezvous { return solutions.NewRendezvous(n) },
		check.Wrong[solution]{
			Name:     "BothWaitFirst",
			Solution: func(n solutions.NewSemaphore) rendezvous { return waitFirst{n(1, 0), n(1, 0)} },
			Want:     "deadlock",
		},
		check.Wrong[solution]{
			Name:     "NobodyWaits",
			Solution: func(n solutions.NewSemaphore) rendezvous { return announceOnly{n(1, 0), n(1, 0)} },
			Want:     "before any",
		})
}
