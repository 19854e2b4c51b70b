package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// releaseFirst gives its seat back before the critical section.
type releaseFirst struct{ room sem.Semaphore }

func (g releaseFirst) Do(ctx context.Context, critical func()) error {
	if err := g.room.Acquire(ctx, 1); err != nil {
		return err
	}
	g.room.Release(1)
	critical()
	return nil
}

func TestMutex(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.Guard
	judgeAll(t, judge.Problem3,
		official(func(n check.NewSemaphore) judge.Guard { return solutions.NewMutex(n) }, check.Right[solution]{Name: "HeavySeats", Solution: func(n check.NewSemaphore) judge.Guard { return newHeavySeats(n, 1) }}),
		check.Wrong[solution]{
			Name:     "TwoPermits",
			Solution: func(n check.NewSemaphore) judge.Guard { return solutions.NewMultiplex(n, 2) },
			Want:     "more than 1 at once",
		})
}

func TestMultiplex(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.Guard
	judgeAll(t, judge.Problem4,
		official(func(n check.NewSemaphore) judge.Guard { return solutions.NewMultiplex(n, 3) }, check.Right[solution]{Name: "HeavySeats", Solution: func(n check.NewSemaphore) judge.Guard { return newHeavySeats(n, 3) }}),
		check.Wrong[solution]{
			Name:     "ReleasesBeforeWork",
			Solution: func(n check.NewSemaphore) judge.Guard { return releaseFirst{n(3, 3)} },
			Want:     "more than 3 at once",
		})
}
