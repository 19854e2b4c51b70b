package solutions_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/solutions"
)

type pot interface {
	Savage(ctx context.Context, getServing func()) error
	Cook(ctx context.Context, fill func(servings int)) error
}

const (
	potSize  = 3
	savages  = 5
	helpings = 4 // per savage
)

// Five savages each eat four times, at seeded moments; the first meal of
// all five comes at once.
var savagesProblem = check.Problem[func(solutions.NewSemaphore, int) pot]{
	Seeds: seeds,
	Scenario: func(r *check.Run, newPot func(solutions.NewSemaphore, int) pot) {
		p := newPot(r.NewSemaphore, potSize)
		r.Serve("cook", func(ctx context.Context) error {
			return p.Cook(ctx, func(servings int) { r.Act("cook", "fill", servings) })
		})
		for i := range savages {
			who := name("savage", i)
			r.Go(who, func(ctx context.Context) error {
				return each(helpings, func(int) error {
					if err := p.Savage(ctx, func() { r.Act(who, "serve", 1) }); err != nil {
						return err
					}
					r.Sleep(time.Duration(r.Rand(5)) * check.Tick) // eat
					return nil
				})
			})
		}
	},
	Rules: servedFromAFilledPot,
}

// servedFromAFilledPot: nobody serves from an empty pot, the cook fills
// only an empty pot, and nobody serves while the cook fills.
func servedFromAFilledPot(log []check.Event) error {
	servings, filling := 0, false
	for _, e := range log {
		switch {
		case e.What == "fill" && e.End:
			filling = false
		case e.What == "fill" && servings > 0:
			return fmt.Errorf("%v with %d servings left", e, servings)
		case e.What == "fill":
			servings, filling = e.N, true
		case e.What == "serve" && !e.End && (servings == 0 || filling):
			return fmt.Errorf("%v from an empty pot", e)
		case e.What == "serve" && !e.End:
			servings--
		}
	}
	return nil
}

// unguardedPot counts the servings with an atomic counter and no mutex:
// two savages may both find the pot empty, or both take the last serving.
type unguardedPot struct {
	servings    atomic.Int64
	empty, full sem.Semaphore
}

func (p *unguardedPot) Savage(ctx context.Context, getServing func()) error {
	if p.servings.Load() == 0 {
		p.empty.Release(1)
		if err := p.full.Acquire(ctx, 1); err != nil {
			return err
		}
		p.servings.Store(potSize)
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
		fill(potSize)
		p.full.Release(1)
	}
}

func TestDiningSavages(t *testing.T) {
	type solution = func(solutions.NewSemaphore, int) pot
	check.Judge(t, savagesProblem,
		func(n solutions.NewSemaphore, size int) pot { return solutions.NewPot(n, size) },
		check.Wrong[solution]{
			Name: "NoMutex",
			Solution: func(n solutions.NewSemaphore, _ int) pot {
				return &unguardedPot{empty: n(savages, 0), full: n(savages, 0)}
			},
			Want: "servings left",
		})
}
