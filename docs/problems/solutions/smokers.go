package solutions

import (
	"context"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/judge"
)

// The ingredients of a cigarette, as the cigarette smokers name them.
const (
	Tobacco = iota
	Paper
	Match
)

// SmokersTable is what the agent of the cigarette smokers gives.
type SmokersTable = judge.SmokersTable

// Smokers solves the cigarette smokers: each smoker has an endless supply
// of one ingredient and needs the other two.
//
// A smoker cannot wait on the two ingredients it lacks one after the
// other: it would take one and hold it while the agent's other
// ingredient goes to somebody else, and everybody would wait. Pushers,
// one per ingredient, take each ingredient as it comes and note it; the
// pusher of the second ingredient of a round sees the first and wakes the
// one smoker who lacks exactly those two.
type Smokers struct {
	table   SmokersTable
	mutex   sem.Semaphore    // one permit: guards onTable
	onTable [3]bool          // taken by a pusher, not yet given to a smoker
	smokers [3]sem.Semaphore // smokers[i]: the smoker who has ingredient i may make a cigarette
}

// NewSmokers returns the pushers and smokers for table.
func NewSmokers(newSemaphore NewSemaphore, table SmokersTable) *Smokers {
	s := &Smokers{table: table, mutex: newSemaphore(1, 1)}
	for i := range s.smokers {
		s.smokers[i] = newSemaphore(1, 0)
	}
	return s
}

// Pusher takes ingredient each time the agent puts it out, and wakes the
// smoker it completes, until ctx is done.
func (s *Smokers) Pusher(ctx context.Context, ingredient int) error {
	for {
		if err := s.table.Ingredients[ingredient].Acquire(ctx, 1); err != nil {
			return err
		}
		if err := s.mutex.Acquire(ctx, 1); err != nil {
			return err
		}
		s.push(ingredient)
		s.mutex.Release(1)
	}
}

// push notes ingredient, or, if another is already noted, wakes the
// smoker who has the third.
func (s *Smokers) push(ingredient int) {
	for other, there := range s.onTable {
		if there {
			s.onTable[other] = false
			s.smokers[3-ingredient-other].Release(1)
			return
		}
	}
	s.onTable[ingredient] = true
}

// Smoker has ingredient has; each time the other two are out, it calls
// makeCigarette and tells the agent, until ctx is done.
func (s *Smokers) Smoker(ctx context.Context, has int, makeCigarette func()) error {
	for {
		if err := s.smokers[has].Acquire(ctx, 1); err != nil {
			return err
		}
		makeCigarette()
		s.table.Agent.Release(1)
	}
}
