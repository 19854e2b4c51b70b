package judge

import (
	"context"
	"errors"
	"time"

	"github.com/semacat/sem/docs/problems/check"
)

// Signal is what problem 1 asks for: Wait returns once Send has been called.
type Signal interface {
	Send()
	Wait(ctx context.Context) error
}

// Problem1 is signalling. The scenario:
// A does a1 and signals; B waits for the signal and does b1. A starts
// late, so that B reaches its wait first and waits a while (long enough
// for a B that polls to be seen busy-waiting).
var Problem1 = check.Problem[func(check.NewSemaphore) Signal]{
	Seeds:    seeds,
	Laggards: true,
	Scenario: func(r *check.Run, newSignal func(check.NewSemaphore) Signal) {
		s := newSignal(r.NewSemaphore)
		r.Go("A", func(context.Context) error {
			r.Sleep(time.Duration(30+r.Rand(3)) * check.Tick)
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

// Rendezvous is what problem 2 asks for: A and B each wait for the other.
type Rendezvous interface {
	A(ctx context.Context) error
	B(ctx context.Context) error
}

// Problem2 is the rendezvous. The scenario:
// A does a1, meets B, does a2; B does b1, meets A, does b2. Either may be
// late.
var Problem2 = check.Problem[func(check.NewSemaphore) Rendezvous]{
	Seeds:    seeds,
	Laggards: true,
	Scenario: func(r *check.Run, newRendezvous func(check.NewSemaphore) Rendezvous) {
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
