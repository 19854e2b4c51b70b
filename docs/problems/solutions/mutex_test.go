package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/solutions"
)

type guard interface {
	Do(ctx context.Context, critical func()) error
}

// multiplexProblem has 8 goroutines run a critical section 3 times each
// through a guard that must let at most seats in at once.
func multiplexProblem(seats int) check.Problem[func(solutions.NewSemaphore) guard] {
	return check.Problem[func(solutions.NewSemaphore) guard]{
		Seeds: seeds,
		Scenario: func(r *check.Run, newGuard func(solutions.NewSemaphore) guard) {
			g := newGuard(r.NewSemaphore)
			for i := range 8 {
				who := name("worker", i)
				r.Go(who, func(ctx context.Context) error {
					return each(3, func(k int) error {
						return g.Do(ctx, func() { r.Act(who, "critical", k) })
					})
				})
			}
		},
		Rules: func(log []check.Event) error { return check.AtMost(log, "critical", seats) },
	}
}

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
	type solution = func(solutions.NewSemaphore) guard
	check.Judge(t, multiplexProblem(1),
		func(n solutions.NewSemaphore) guard { return solutions.NewMutex(n) },
		check.Wrong[solution]{
			Name:     "TwoPermits",
			Solution: func(n solutions.NewSemaphore) guard { return solutions.NewMultiplex(n, 2) },
			Want:     "more than 1 at once",
		})
}

func TestMultiplex(t *testing.T) {
	type solution = func(solutions.NewSemaphore) guard
	check.Judge(t, multiplexProblem(3),
		func(n solutions.NewSemaphore) guard { return solutions.NewMultiplex(n, 3) },
		check.Wrong[solution]{
			Name:     "ReleasesBeforeWork",
			Solution: func(n solutions.NewSemaphore) guard { return releaseFirst{n(3, 3)} },
			Want:     "more than 3 at once",
		})
}
