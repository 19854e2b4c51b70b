package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// sharedStalls is the bathroom with one set of stalls for both sexes:
// since the sexes never mix, one multiplex is enough.
type sharedStalls struct {
	empty, stalls sem.Semaphore
	women, men    *solutions.Lightswitch
}

func newSharedStalls(n check.NewSemaphore) judge.Bathroom {
	return &sharedStalls{n(1, 1), n(3, 3), solutions.NewLightswitch(n), solutions.NewLightswitch(n)}
}

func (b *sharedStalls) Woman(ctx context.Context, use func()) error {
	return b.visit(ctx, b.women, use)
}
func (b *sharedStalls) Man(ctx context.Context, use func()) error { return b.visit(ctx, b.men, use) }

func (b *sharedStalls) visit(ctx context.Context, sex *solutions.Lightswitch, use func()) error {
	if err := sex.Lock(ctx, b.empty); err != nil {
		return err
	}
	if err := b.stalls.Acquire(ctx, 1); err != nil {
		return err
	}
	use()
	b.stalls.Release(1)
	return sex.Unlock(ctx, b.empty)
}

// stallsOnly bounds how many are in, but lets both sexes in together.
type stallsOnly struct{ stalls sem.Semaphore }

func (b stallsOnly) Woman(ctx context.Context, use func()) error { return b.Man(ctx, use) }
func (b stallsOnly) Man(ctx context.Context, use func()) error {
	if err := b.stalls.Acquire(ctx, 1); err != nil {
		return err
	}
	use()
	b.stalls.Release(1)
	return nil
}

func TestUnisexBathroom(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.Bathroom
	judgeAll(t, judge.Problem21,
		official(func(n check.NewSemaphore) judge.Bathroom { return solutions.NewBathroom(n) },
			check.Right[solution]{Name: "SharedStalls", Solution: newSharedStalls}),
		check.Wrong[solution]{
			Name: "NoStalls", // the women's stalls: four, not three
			Solution: func(n check.NewSemaphore) judge.Bathroom {
				return solutions.NewBathroom(remade(n, 4, 4, 4))
			},
			Want: "more than 3 at once",
		},
		check.Wrong[solution]{
			Name:     "StallsOnly",
			Solution: func(n check.NewSemaphore) judge.Bathroom { return stallsOnly{n(3, 3)} },
			Want:     "use as a man and use as a woman at once",
		})
}
