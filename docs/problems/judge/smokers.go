package judge

import (
	"context"
	"fmt"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
)

// Smokers is what problem 17 asks for: the smokers and their pushers.
type Smokers interface {
	Pusher(ctx context.Context, ingredient int) error
	Smoker(ctx context.Context, has int, makeCigarette func()) error
}

const smokerRounds = 12

var ingredientNames = [3]string{"tobacco", "paper", "match"}

// Problem17 is the cigarette smokers. The scenario:
// The agent puts out two seeded ingredients, twelve times, waiting each
// time for a cigarette; then it waits for the last one and leaves.
var Problem17 = check.Problem[func(check.NewSemaphore, SmokersTable) Smokers]{
	Seeds:    seeds,
	Laggards: true,
	Scenario: func(r *check.Run, newSmokers func(check.NewSemaphore, SmokersTable) Smokers) {
		table := SmokersTable{Agent: r.NewSemaphore(1, 1)}
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

// SmokersTable is what the agent of the cigarette smokers gives: one
// semaphore per ingredient, which it releases when it puts that ingredient
// on the table, two at a time, and Agent, which a smoker releases once it
// has made its cigarette, to let the agent put out the next two.
type SmokersTable struct {
	Ingredients [3]sem.Semaphore
	Agent       sem.Semaphore
}
