package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// leftFirst: every philosopher takes the left fork, then the right.
type leftFirst struct{ forks []sem.Semaphore }

func (t leftFirst) Eat(ctx context.Context, i int, eat func()) error {
	left, right := t.forks[i], t.forks[(i+1)%len(t.forks)]
	if err := left.Acquire(ctx, 1); err != nil {
		return err
	}
	defer left.Release(1)
	if err := right.Acquire(ctx, 1); err != nil {
		return err
	}
	defer right.Release(1)
	eat()
	return nil
}

func TestDiningPhilosophers(t *testing.T) {
	type solution = func(check.NewSemaphore, int) judge.Table
	judgeAll(t, judge.Problem13,
		official(func(ns check.NewSemaphore, n int) judge.Table { return solutions.NewTable(ns, n) }, check.Right[solution]{Name: "Footman", Solution: func(ns check.NewSemaphore, n int) judge.Table { return newFootman(ns, n) }}),
		check.Wrong[solution]{
			Name: "AllLeftFirst",
			Solution: func(ns check.NewSemaphore, n int) judge.Table {
				forks := make([]sem.Semaphore, n)
				for i := range forks {
					forks[i] = ns(1, 1)
				}
				return leftFirst{forks}
			},
			Want: "deadlock",
		})
}
