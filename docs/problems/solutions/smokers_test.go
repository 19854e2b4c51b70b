package solutions_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/solutions"
)

type smokers interface {
	Pusher(ctx context.Context, ingredient int) error
	Smoker(ctx context.Context, has int, makeCigarette func()) error
}

const smokerRounds = 12

var ingredientNames = [3]string{"tobacco", "paper", "match"}

// The agent puts out two seeded ingredients, twelve times, waiting each
// time for a cigarette; then it waits for the last one and leaves.
var smokersProblem = check.Problem[func(solutions.NewSemaphore, solutions.SmokersTable) smokers]{
	Seeds: seeds,
	Scenario: func(r *check.Run, newSmokers func(solutions.NewSemaphore, solutions.SmokersTable) smokers) {
		table := solutions.SmokersTable{Agent: r.NewSemaphore(1, 1)}
		for i := range table.Ingredients {
			table.Ingredients[i] = r.NewSemaphore(1, 0)
		}
		s := newSmokers(r.NewSemaphore, table)
		for i, ingredient := range ingredientNames {
			r.Serve("pusher of "+ingredient, func(ctx context.Context) error { return s.Pusher(ctx, i) })
			who := "smoker with " + ingredient
			r.Serve(who, func(ctx context.Context) error {
				return s.Smoker(ctx, i, func() { r.Act(who, "make", i) })
			})
		}
		r.Go("agent", func(ctx context.Context) error {
			if err := each(smokerRounds, func(int) error {
				if err := table.Agent.Acquire(ctx, 1); err != nil {
					return err
				}
				missing := r.Rand(3)
				r.Record("agent", "put out all but", missing)
				for i := range table.Ingredients {
					if i != missing {
						table.Ingredients[i].Release(1)
					}
				}
				return nil
			}); err != nil {
				return err
			}
			return table.Agent.Acquire(ctx, 1) // the last cigarette
		})
	},
	Rules: rightSmokerEachRound,
}

// rightSmokerEachRound: after each round of the agent, one cigarette is
// made, by the smoker who has the missing ingredient.
func rightSmokerEachRound(log []check.Event) error {
	missing := -1
	for _, e := range log {
		switch {
		case e.What == "put out all but":
			missing = e.N
		case e.What == "make" && !e.End && e.N != missing:
			return fmt.Errorf("%v, but the agent put out all but %d", e, missing)
		case e.What == "make" && !e.End:
			missing = -1
		}
	}
	return nil
}

// greedySmokers wait for the two ingredients they lack, one after the
// other, with no pushers.
type greedySmokers struct{ table solutions.SmokersTable }

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
	type solution = func(solutions.NewSemaphore, solutions.SmokersTable) smokers
	check.Judge(t, smokersProblem,
		func(n solutions.NewSemaphore, table solutions.SmokersTable) smokers {
			return solutions.NewSmokers(n, table)
		},
		check.Wrong[solution]{
			Name: "SmokersTakeIngredients",
			Solution: func(_ solutions.NewSemaphore, table solutions.SmokersTable) smokers {
				return greedySmokers{table}
			},
			Want: "agent: still waiting at the deadline: deadlock",
		})
}
