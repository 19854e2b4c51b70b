package solutions_test

import (
	"testing"

	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

func TestFaneuilHall(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.Hall
	hall := func(n check.NewSemaphore) judge.Hall { return solutions.NewHall(n, judge.Immigrants) }
	judgeAll(t, judge.Problem31,
		official(hall, check.Right[solution]{
			Name:     "WeightedCheckIn",
			Solution: func(n check.NewSemaphore) judge.Hall { return newWeightedHall(n, judge.Immigrants) },
		}),
		check.Wrong[solution]{
			Name:     "TurnstileOfTwo", // the judge holds one permit, others pass on the other
			Solution: func(n check.NewSemaphore) judge.Hall { return hall(remade(n, 1, 2, 2)) },
			Want:     "while the judge is in",
		},
		check.Wrong[solution]{
			Name:     "JudgeDoesNotWait", // allSignedIn starts signalled
			Solution: func(n check.NewSemaphore) judge.Hall { return hall(remade(n, 3, 1, 1)) },
			Want:     "the judge confirms only once all who came in have checked in",
		},
		check.Wrong[solution]{
			Name: "ConfirmedFromTheStart",
			Solution: func(n check.NewSemaphore) judge.Hall {
				return hall(remade(n, 4, 2*judge.Immigrants, judge.Immigrants))
			},
			Want: "before a judge confirmed it",
		})
}
