package solutions_test

import (
	"testing"

	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

func TestNoStarveMutex(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.Guard
	judgeAll(t, judge.Problem12,
		official(func(n check.NewSemaphore) judge.Guard { return solutions.NewNoStarveMutex(n) },
			check.Right[solution]{
				Name:     "QueueLock",
				Solution: func(n check.NewSemaphore) judge.Guard { return newQueueLock(n) },
			}),
		check.Wrong[solution]{
			Name:     "PlainMutex",
			Solution: func(n check.NewSemaphore) judge.Guard { return solutions.NewMutex(n) },
			Want:     "times while",
		})
}
