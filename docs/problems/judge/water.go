package judge

import (
	"context"
	"fmt"
	"time"

	"github.com/semacat/sem/docs/problems/check"
)

// Water is what problem 14 asks for: atoms bond into molecules of H2O.
type Water interface {
	Oxygen(ctx context.Context, bond func()) error
	Hydrogen(ctx context.Context, bond func()) error
}

// Problem14 is building H2O. The scenario:
// Two molecules' worth of atoms come at once, then four more at seeded
// times.
var Problem14 = check.Problem[func(check.NewSemaphore) Water]{
	Seeds:    10 * seeds, // a slow atom at a shared barrier's way out takes many runs to meet
	Laggards: true,
	Scenario: func(r *check.Run, newWater func(check.NewSemaphore) Water) {
		w := newWater(r.NewSemaphore)
		atom := func(who string, at int, join func(context.Context, func()) error) {
			r.Go(who, func(ctx context.Context) error {
				r.Sleep(time.Duration(at) * check.Tick)
				return join(ctx, func() { r.Act(who, "bond", 0) })
			})
		}
		for i := range 6 {
			at := 0
			if i >= 2 {
				at = 10 + r.Rand(50)
			}
			atom(name("O", i), at, w.Oxygen)
			atom(name("H", 2*i), at, w.Hydrogen)
			atom(name("H", 2*i+1), 10+r.Rand(50)*min(i, 1), w.Hydrogen)
		}
	},
	Rules: moleculesOneByOne,
}

// moleculesOneByOne: bonds begin three by three, two hydrogens and one
// oxygen, and a molecule begins only once the last one's atoms have all
// bonded.
func moleculesOneByOne(log []check.Event) error {
	var molecule []string // atoms of the molecule being made
	ended := 0
	for _, e := range log {
		if e.End {
			ended++
			continue
		}
		if len(molecule) == 3 {
			if ended < 3 {
				return fmt.Errorf("%v while the molecule %v is still bonding", e, molecule)
			}
			molecule, ended = nil, 0
		}
		molecule = append(molecule, e.Who)
		if o := countKind(molecule, "O"); o > 1 || len(molecule)-o > 2 {
			return fmt.Errorf("%v: the molecule would be %v", e, molecule)
		}
	}
	return nil
}
