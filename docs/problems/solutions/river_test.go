package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// anyFour fills the boat with whoever comes, four at a time.
type anyFour struct {
	mutex, queue sem.Semaphore
	aboard       *solutions.ReusableBarrier
	waiting      int
}

func (r *anyFour) Hacker(ctx context.Context, board, rowBoat func()) error {
	return r.cross(ctx, board, rowBoat)
}

func (r *anyFour) Serf(ctx context.Context, board, rowBoat func()) error {
	return r.cross(ctx, board, rowBoat)
}

func (r *anyFour) cross(ctx context.Context, board, rowBoat func()) error {
	if err := r.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	r.waiting++
	captain := r.waiting == 4
	if captain {
		r.waiting = 0
		r.queue.Release(4)
	} else {
		r.mutex.Release(1)
	}
	if err := r.queue.Acquire(ctx, 1); err != nil {
		return err
	}
	board()
	if err := r.aboard.Wait(ctx); err != nil {
		return err
	}
	if captain {
		rowBoat()
		r.mutex.Release(1)
	}
	return nil
}

func TestRiverCrossing(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.River
	judgeAll(t, judge.Problem18,
		official(func(n check.NewSemaphore) judge.River { return solutions.NewRiver(n) },
			check.Right[solution]{
				Name:     "CountedBoat",
				Solution: func(n check.NewSemaphore) judge.River { return newCountedBoat(n) },
			}),
		check.Wrong[solution]{
			Name: "AnyFour",
			Solution: func(n check.NewSemaphore) judge.River {
				return &anyFour{mutex: n(1, 1), queue: n(4, 0), aboard: solutions.NewReusableBarrier(n, 4)}
			},
			Want: "the boat would be",
		},
		check.Wrong[solution]{
			Name:     "SharedBarrier",
			Solution: func(n check.NewSemaphore) judge.River { return newBarrierRiver(n) },
			Want:     "still waiting at the deadline",
		})
}
