package solutions_test

import (
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// oneUnboardQueue builds the cars with one queue for getting off, shared
// by every car: the semaphores NewCars builds 7th, 10th and 13th (each
// car's unboardQueue) are one.
func oneUnboardQueue(n check.NewSemaphore) check.NewSemaphore {
	made := 0
	var shared sem.Semaphore
	return func(size, available int64) sem.Semaphore {
		switch made++; made {
		case 7:
			shared = n(size, available)
			return shared
		case 10, 13:
			return shared
		}
		return n(size, available)
	}
}

func TestMultiCarCoaster(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.Cars
	newCars := func(n check.NewSemaphore) judge.Cars {
		return solutions.NewCars(n, judge.CarsOnTrack, judge.CarSeats)
	}
	judgeAll(t, judge.Problem27,
		official(newCars, check.Right[solution]{
			Name: "WeightedWaits",
			Solution: func(n check.NewSemaphore) judge.Cars {
				return newWeightedCars(n, judge.CarsOnTrack, judge.CarSeats)
			},
		}),
		check.Wrong[solution]{
			Name:     "LoadOutOfTurn", // car 1's loading area starts open
			Solution: func(n check.NewSemaphore) judge.Cars { return newCars(remade(n, 8, 1, 1)) },
			Want:     "car 1: load 1",
		},
		check.Wrong[solution]{
			Name:     "OneUnboardQueue",
			Solution: func(n check.NewSemaphore) judge.Cars { return newCars(oneUnboardQueue(n)) },
			Want:     "while car",
		})
}
