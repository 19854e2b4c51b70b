package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// oneWayAtATime lets baboons cross one at a time, whichever way: safe, but
// the rope is never shared.
type oneWayAtATime struct{ rope sem.Semaphore }

func (r oneWayAtATime) East(ctx context.Context, cross func()) error { return r.West(ctx, cross) }
func (r oneWayAtATime) West(ctx context.Context, cross func()) error {
	if err := r.rope.Acquire(ctx, 1); err != nil {
		return err
	}
	cross()
	r.rope.Release(1)
	return nil
}

func TestBaboonCrossing(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.Rope
	judgeAll(t, judge.Problem28,
		official(func(n check.NewSemaphore) judge.Rope { return solutions.NewRope(n) },
			check.Right[solution]{Name: "AsTheBathroom", Solution: func(n check.NewSemaphore) judge.Rope {
				b := solutions.NewBathroom(remade(remade(n, 4, judge.RopeHolds, judge.RopeHolds), 5, judge.RopeHolds, judge.RopeHolds))
				return bathroomRope{b}
			}}),
		check.Wrong[solution]{
			Name: "NoPlaces", // the places: six, not five
			Solution: func(n check.NewSemaphore) judge.Rope {
				return solutions.NewRope(remade(n, 4, judge.RopeHolds+1, judge.RopeHolds+1))
			},
			Want: "more than 5 at once",
		},
		check.Wrong[solution]{
			Name: "NoSwitch", // the rope of two permits: both ways at once
			Solution: func(n check.NewSemaphore) judge.Rope {
				return solutions.NewRope(remade(n, 1, 2, 2))
			},
			Want: "cross west and cross east at once",
		},
		check.Wrong[solution]{
			Name:     "OneAtATime",
			Solution: func(n check.NewSemaphore) judge.Rope { return oneWayAtATime{n(1, 1)} },
			Want:     "baboons never crossed together",
		})
}

// bathroomRope is the unisex bathroom's answer with stalls of RopeHolds:
// east is one sex, west the other.
type bathroomRope struct{ b *solutions.Bathroom }

func (r bathroomRope) East(ctx context.Context, cross func()) error { return r.b.Woman(ctx, cross) }
func (r bathroomRope) West(ctx context.Context, cross func()) error { return r.b.Man(ctx, cross) }
