package solutions_test

import (
	"testing"

	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

func TestRollerCoaster(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.Coaster
	judgeAll(t, judge.Problem23,
		official(func(n check.NewSemaphore) judge.Coaster { return solutions.NewCoaster(n, judge.CarSeats) }),
		check.Wrong[solution]{
			Name: "RunsBeforeAllAboard", // allAboard starts signalled
			Solution: func(n check.NewSemaphore) judge.Coaster {
				return solutions.NewCoaster(remade(n, 4, 1, 1), judge.CarSeats)
			},
			Want: "seats taken",
		},
		check.Wrong[solution]{
			Name: "UnboardAnyTime", // unboardQueue starts with every seat's permit
			Solution: func(n check.NewSemaphore) judge.Coaster {
				return solutions.NewCoaster(remade(n, 3, judge.CarSeats, judge.CarSeats), judge.CarSeats)
			},
			Want: "unboard 0 while the car is",
		})
}
