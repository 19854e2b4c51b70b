package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// noHold lets the three atoms out of their queues but does not keep the
// mutex while they bond: the next molecule can start at once.
type noHold struct {
	mutex, oxyQueue, hydQueue sem.Semaphore
	oxygen, hydrogen          int
}

func (w *noHold) Oxygen(ctx context.Context, bond func()) error {
	return w.join(ctx, &w.oxygen, w.oxyQueue, bond)
}

func (w *noHold) Hydrogen(ctx context.Context, bond func()) error {
	return w.join(ctx, &w.hydrogen, w.hydQueue, bond)
}

func (w *noHold) join(ctx context.Context, count *int, queue sem.Semaphore, bond func()) error {
	if err := w.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	*count++
	if w.hydrogen >= 2 && w.oxygen >= 1 {
		w.hydrogen -= 2
		w.oxygen--
		w.hydQueue.Release(2)
		w.oxyQueue.Release(1)
	}
	w.mutex.Release(1)
	if err := queue.Acquire(ctx, 1); err != nil {
		return err
	}
	bond()
	return nil
}

func TestH2O(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.Water
	judgeAll(t, judge.Problem14,
		official(func(n check.NewSemaphore) judge.Water { return solutions.NewWater(n) }, check.Right[solution]{Name: "OxygenLeads", Solution: newOxygenLeads}),
		check.Wrong[solution]{
			Name: "NoHold",
			Solution: func(n check.NewSemaphore) judge.Water {
				return &noHold{mutex: n(1, 1), oxyQueue: n(6, 0), hydQueue: n(12, 0)}
			},
			Want: "the molecule",
		},
		check.Wrong[solution]{
			Name:     "SharedBarrier",
			Solution: func(n check.NewSemaphore) judge.Water { return newBarrierWater(n) },
			Want:     "still waiting at the deadline",
		})
}
