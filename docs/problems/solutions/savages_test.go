package solutions_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// unguardedPot counts the servings with an atomic counter and no mutex:
// two savages may both find the pot empty, or both take the last serving.
type unguardedPot struct {
	servings    atomic.Int64
	empty, full sem.Semaphore
	size        int
}

func (p *unguardedPot) Savage(ctx context.Context, getServing func()) error {
	if p.servings.Load() == 0 {
		p.empty.Release(1)
		if err := p.full.Acquire(ctx, 1); err != nil {
			return err
		}
		p.servings.Store(int64(p.size))
	}
	p.servings.Add(-1)
	getServing()
	return nil
}

func (p *unguardedPot) Cook(ctx context.Context, fill func(int)) error {
	for {
		if err := p.empty.Acquire(ctx, 1); err != nil {
			return err
		}
		fill(p.size)
		p.full.Release(1)
	}
}

func TestDiningSavages(t *testing.T) {
	type solution = func(check.NewSemaphore, int) judge.Pot
	judgeAll(t, judge.Problem16,
		official(func(n check.NewSemaphore, size int) judge.Pot { return solutions.NewPot(n, size) }, check.Right[solution]{Name: "CookCounts", Solution: newCookCounts}),
		check.Wrong[solution]{
			Name: "NoMutex",
			Solution: func(n check.NewSemaphore, size int) judge.Pot {
				return &unguardedPot{empty: n(5, 0), full: n(5, 0), size: size}
			},
			Want: "servings left",
		})
}
