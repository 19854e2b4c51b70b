package judge

import (
	"context"
	"fmt"
	"time"

	"github.com/semacat/sem/docs/problems/check"
)

// Table is what problem 13 asks for: Eat waits for philosopher i's forks,
// calls eat, and puts them down.
type Table interface {
	Eat(ctx context.Context, i int, eat func()) error
}

const (
	philosophers = 5
	meals        = 6
)

// Problem13 is the dining philosophers. The scenario:
// Five philosophers sit down at once and each eats six meals, thinking a
// seeded while between them.
var Problem13 = check.Problem[func(check.NewSemaphore, int) Table]{
	Seeds:    seeds,
	Laggards: true,
	Scenario: func(r *check.Run, newTable func(check.NewSemaphore, int) Table) {
		t := newTable(r.NewSemaphore, philosophers)
		for i := range philosophers {
			who := name("philosopher", i)
			r.Go(who, func(ctx context.Context) error {
				return each(meals, func(meal int) error {
					if err := t.Eat(ctx, i, func() { r.Act(who, "eat", i) }); err != nil {
						return err
					}
					r.Sleep(time.Duration(r.Rand(3)) * check.Tick)
					return nil
				})
			})
		}
	},
	Rules: neighboursNeverEatTogether,
}

// neighboursNeverEatTogether: two philosophers who share a fork never eat
// at once. (That everyone eats every meal is checked by the run: a
// philosopher still waiting at the deadline fails it.)
func neighboursNeverEatTogether(log []check.Event) error {
	eating := map[int]bool{}
	for _, e := range log {
		if e.End {
			delete(eating, e.N)
			continue
		}
		left, right := (e.N+philosophers-1)%philosophers, (e.N+1)%philosophers
		if eating[left] || eating[right] {
			return fmt.Errorf("%v while a neighbour eats", e)
		}
		eating[e.N] = true
	}
	return nil
}
