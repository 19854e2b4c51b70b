package judge

import (
	"context"

	"github.com/semacat/sem/docs/problems/check"
)

// Guard is what problems 3, 4 and 12 ask for: Do runs critical while
// holding a seat.
type Guard interface {
	Do(ctx context.Context, critical func()) error
}

// multiplexProblem has 8 goroutines run a critical section 3 times each
// through a guard that must let at most seats in at once.
func multiplexProblem(seats int) check.Problem[func(check.NewSemaphore) Guard] {
	return check.Problem[func(check.NewSemaphore) Guard]{
		Seeds:    seeds,
		Laggards: true,
		Scenario: func(r *check.Run, newGuard func(check.NewSemaphore) Guard) {
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
