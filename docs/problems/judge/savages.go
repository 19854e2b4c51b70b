package judge

import (
	"context"
	"fmt"
	"time"

	"github.com/semacat/sem/docs/problems/check"
)

// Pot is what problem 16 asks for: savages eat from a pot a cook fills.
type Pot interface {
	Savage(ctx context.Context, getServing func()) error
	Cook(ctx context.Context, fill func(servings int)) error
}

const (
	potSize  = 3
	savages  = 5
	helpings = 4 // per savage
)

// Problem16 is the dining savages. The scenario:
// Five savages each eat four times, at seeded moments; the first meal of
// all five comes at once.
var Problem16 = check.Problem[func(check.NewSemaphore, int) Pot]{
	Seeds:    seeds,
	Laggards: true,
	Scenario: func(r *check.Run, newPot func(check.NewSemaphore, int) Pot) {
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
