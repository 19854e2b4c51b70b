package solutions_test

import (
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

func TestSantaClaus(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.Workshop
	judgeAll(t, judge.Problem19,
		official(func(n check.NewSemaphore) judge.Workshop { return solutions.NewWorkshop(n) },
			check.Right[solution]{
				Name:     "SantaHoldsTheMutex",
				Solution: func(n check.NewSemaphore) judge.Workshop { return newMutexSanta(n) },
			}),
		check.Wrong[solution]{
			Name:     "ElvesFirst",
			Solution: newElvesFirst,
			Want:     "while all 9 reindeer have been back",
		},
		check.Wrong[solution]{
			Name:     "HeldMutexElvesFirst",
			Solution: func(n check.NewSemaphore) judge.Workshop { return newHeldMutexElvesFirst(n) },
			Want:     "while all 9 reindeer have been back",
		},
		check.Wrong[solution]{
			Name:     "HelpStartsGiven",
			Solution: func(n check.NewSemaphore) judge.Workshop { return solutions.NewWorkshop(helpStartsGiven(n)) },
			Want:     "elf 0: get help 0 before Santa began to help its group",
		})
}

// helpStartsGiven builds the semaphore of Santa's help (the only one of
// size ElfGroup) with its permits free: the first elves get help before
// Santa has begun to help them.
func helpStartsGiven(n check.NewSemaphore) check.NewSemaphore {
	return func(size, available int64) sem.Semaphore {
		if size == solutions.ElfGroup {
			available = size
		}
		return n(size, available)
	}
}
