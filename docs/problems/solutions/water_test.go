package solutions_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/solutions"
)

type water interface {
	Oxygen(ctx context.Context, bond func()) error
	Hydrogen(ctx context.Context, bond func()) error
}

// Two molecules' worth of atoms come at once, then four more at seeded
// times.
var waterProblem = check.Problem[func(solutions.NewSemaphore) water]{
	Seeds: seeds,
	Scenario: func(r *check.Run, newWater func(solutions.NewSemaphore) water) {
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
	type solution = func(solutions.NewSemaphore) water
	check.Judge(t, waterProblem,
		func(n solutions.NewSemaphore) water { return solutions.NewWater(n) },
		check.Wrong[solution]{
			Name: "NoHold",
			Solution: func(n solutions.NewSemaphore) water {
				return &noHold{mutex: n(1, 1), oxyQueue: n(6, 0), hydQueue: n(12, 0)}
			},
			Want: "the molecule",
		})
}
