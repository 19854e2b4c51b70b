package solutions_test

import (
	"context"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
)

// Right answers to the classic problems written differently from the
// book's.

// batonRoom is writer priority by passing the baton: one mutex guards all
// the counts, a goroutine that must wait counts itself delayed and waits
// on its kind's queue, and whoever leaves the state changed hands the
// mutex straight to the one waiter who may go on (a writer first), or
// gives it back.
type batonRoom struct {
	mutex, readQ, writeQ sem.Semaphore
	reading              int
	writing              bool
	readersDelayed       int
	writersDelayed       int
}

func newBatonRoom(n check.NewSemaphore) judge.ReadersWriters {
	return &batonRoom{mutex: n(1, 1), readQ: n(64, 0), writeQ: n(64, 0)}
}

func (b *batonRoom) ReadLock(ctx context.Context) error {
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	if b.writing || b.writersDelayed > 0 {
		b.readersDelayed++
		b.mutex.Release(1)
		if err := b.readQ.Acquire(ctx, 1); err != nil { // wakes holding the mutex
			return err
		}
	}
	b.reading++
	b.pass()
	return nil
}

func (b *batonRoom) ReadUnlock(ctx context.Context) error {
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	b.reading--
	b.pass()
	return nil
}

func (b *batonRoom) WriteLock(ctx context.Context) error {
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	if b.writing || b.reading > 0 {
		b.writersDelayed++
		b.mutex.Release(1)
		if err := b.writeQ.Acquire(ctx, 1); err != nil { // wakes holding the mutex
			return err
		}
	}
	b.writing = true
	b.pass()
	return nil
}

func (b *batonRoom) WriteUnlock(ctx context.Context) error {
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	b.writing = false
	b.pass()
	return nil
}

// pass hands the mutex to a delayed writer if the room is empty, else to a
// delayed reader if no writer writes or waits, else gives it back.
func (b *batonRoom) pass() {
	switch {
	case !b.writing && b.reading == 0 && b.writersDelayed > 0:
		b.writersDelayed--
		b.writeQ.Release(1)
	case !b.writing && b.writersDelayed == 0 && b.readersDelayed > 0:
		b.readersDelayed--
		b.readQ.Release(1)
	default:
		b.mutex.Release(1)
	}
}

// oxygenLeads builds water one oxygen at a time: the oxygen that holds
// the oxygen mutex waits for two hydrogens to announce themselves, lets
// them bond, bonds, and waits for both to finish before it lets the next
// oxygen in.
type oxygenLeads struct {
	oxygens, hydrogenHere, hydrogenGo, hydrogenDone sem.Semaphore
}

func newOxygenLeads(n check.NewSemaphore) judge.Water {
	return oxygenLeads{n(1, 1), n(12, 0), n(2, 0), n(2, 0)}
}

func (w oxygenLeads) Oxygen(ctx context.Context, bond func()) error {
	if err := w.oxygens.Acquire(ctx, 1); err != nil {
		return err
	}
	if err := w.hydrogenHere.Acquire(ctx, 2); err != nil {
		return err
	}
	w.hydrogenGo.Release(2)
	bond()
	if err := w.hydrogenDone.Acquire(ctx, 2); err != nil {
		return err
	}
	w.oxygens.Release(1)
	return nil
}

func (w oxygenLeads) Hydrogen(ctx context.Context, bond func()) error {
	w.hydrogenHere.Release(1)
	if err := w.hydrogenGo.Acquire(ctx, 1); err != nil {
		return err
	}
	bond()
	w.hydrogenDone.Release(1)
	return nil
}

// cookCounts is the dining savages' pot in which the cook, not the
// savage who woke it, sets the servings: the waking savage holds the
// mutex, so the cook's write is safe, and the full signal orders it
// before the savage's read.
type cookCounts struct {
	mutex, empty, full sem.Semaphore
	servings, size     int
}

func newCookCounts(n check.NewSemaphore, size int) judge.Pot {
	return &cookCounts{mutex: n(1, 1), empty: n(1, 0), full: n(1, 0), size: size}
}

func (p *cookCounts) Savage(ctx context.Context, getServing func()) error {
	if err := p.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	defer p.mutex.Release(1)
	if p.servings == 0 {
		p.empty.Release(1)
		if err := p.full.Acquire(ctx, 1); err != nil {
			return err
		}
	}
	p.servings--
	getServing()
	return nil
}

func (p *cookCounts) Cook(ctx context.Context, fill func(int)) error {
	for {
		if err := p.empty.Acquire(ctx, 1); err != nil {
			return err
		}
		fill(p.size)
		p.servings = p.size
		p.full.Release(1)
	}
}

// countingPushers are pushers that count the ingredients out on the
// table instead of flagging them: a pusher adds its own, then wakes the
// smoker of any two different ones.
type countingPushers struct {
	table   judge.SmokersTable
	mutex   sem.Semaphore
	out     [3]int
	smokers [3]sem.Semaphore
}

func newCountingPushers(n check.NewSemaphore, table judge.SmokersTable) judge.Smokers {
	s := &countingPushers{table: table, mutex: n(1, 1)}
	for i := range s.smokers {
		s.smokers[i] = n(1, 0)
	}
	return s
}

func (s *countingPushers) Pusher(ctx context.Context, ingredient int) error {
	for {
		if err := s.table.Ingredients[ingredient].Acquire(ctx, 1); err != nil {
			return err
		}
		if err := s.mutex.Acquire(ctx, 1); err != nil {
			return err
		}
		s.out[ingredient]++
		for smoker := range s.smokers {
			a, b := (smoker+1)%3, (smoker+2)%3
			if s.out[a] > 0 && s.out[b] > 0 {
				s.out[a]--
				s.out[b]--
				s.smokers[smoker].Release(1)
			}
		}
		s.mutex.Release(1)
	}
}

func (s *countingPushers) Smoker(ctx context.Context, has int, makeCigarette func()) error {
	for {
		if err := s.smokers[has].Acquire(ctx, 1); err != nil {
			return err
		}
		makeCigarette()
		s.table.Agent.Release(1)
	}
}
