package solutions_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/solutions"
)

type table interface {
	Eat(ctx context.Context, i int, eat func()) error
}

const (
	philosophers = 5
	meals        = 6
)

// Five philosophers sit down at once and each eats six meals, thinking a
// seeded while between them.
var philosophersProblem = check.Problem[func(solutions.NewSemaphore, int) table]{
	Seeds: seeds,
	Scenario: func(r *check.Run, newTable func(solutions.NewSemaphore, int) table) {
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
	type solution = func(solutions.NewSemaphore, int) table
	check.Judge(t, philosophersProblem,
		func(ns solutions.NewSemaphore, n int) table { return solutions.NewTable(ns, n) },
		check.Wrong[solution]{
			Name: "AllLeftFirst",
			Solution: func(ns solutions.NewSemaphore, n int) table {
				forks := make([]sem.Semaphore, n)
				for i := range forks {
					forks[i] = ns(1, 1)
				}
				return leftFirst{forks}
			},
			Want: "deadlock",
		})
}
