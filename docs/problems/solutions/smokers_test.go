package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// greedySmokers wait for the two ingredients they lack, one after the
// other, with no pushers.
type greedySmokers struct{ table judge.SmokersTable }

func (greedySmokers) Pusher(context.Context, int) error { return nil }

func (s greedySmokers) Smoker(ctx context.Context, has int, makeCigarette func()) error {
	for {
		for i, ingredient := range s.table.Ingredients {
			if i == has {
				continue
			}
			if err := ingredient.Acquire(ctx, 1); err != nil {
				return err
			}
		}
		makeCigarette()
		s.table.Agent.Release(1)
	}
}

func TestCigaretteSmokers(t *testing.T) {
	type solution = func(check.NewSemaphore, judge.SmokersTable) judge.Smokers
	judgeAll(t, judge.Problem17,
		official(func(n check.NewSemaphore, table judge.SmokersTable) judge.Smokers {
			return solutions.NewSmokers(n, table)
		}, check.Right[solution]{Name: "CountingPushers", Solution: newCountingPushers}),
		check.Wrong[solution]{
			Name: "SmokersTakeIngredients",
			Solution: func(_ check.NewSemaphore, table judge.SmokersTable) judge.Smokers {
				return greedySmokers{table}
			},
			Want: "agent: still waiting at the deadline: deadlock",
		})
}
