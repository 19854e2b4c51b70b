package solutions_test

import (
	"context"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// elvesFirst is a workshop whose Santa, when he wakes, looks at the elves
// before the reindeer.
type elvesFirst struct {
	mutex, santa, sleigh, help, elfDoor sem.Semaphore
	reindeer, elves                     int
}

func newElvesFirst(n check.NewSemaphore) judge.Workshop {
	return &elvesFirst{
		mutex:   n(1, 1),
		santa:   n(2, 0),
		sleigh:  n(solutions.Herd, 0),
		help:    n(solutions.ElfGroup, 0),
		elfDoor: n(1, 1),
	}
}

func (w *elvesFirst) Santa(ctx context.Context, prepareSleigh, helpElves func()) error {
	for {
		if err := w.santa.Acquire(ctx, 1); err != nil {
			return err
		}
		if err := w.mutex.Acquire(ctx, 1); err != nil {
			return err
		}
		group := w.elves == solutions.ElfGroup
		if !group {
			w.reindeer = 0
		}
		w.mutex.Release(1)
		if group {
			helpElves()
			w.help.Release(solutions.ElfGroup)
		} else {
			prepareSleigh()
			w.sleigh.Release(solutions.Herd)
		}
	}
}

func (w *elvesFirst) Reindeer(ctx context.Context, getHitched func()) error {
	if err := w.count(ctx, &w.reindeer, 1, solutions.Herd); err != nil {
		return err
	}
	if err := w.sleigh.Acquire(ctx, 1); err != nil {
		return err
	}
	getHitched()
	return nil
}

func (w *elvesFirst) Elf(ctx context.Context, getHelp func()) error {
	if err := w.elfDoor.Acquire(ctx, 1); err != nil {
		return err
	}
	if err := w.count(ctx, &w.elves, 1, solutions.ElfGroup); err != nil {
		return err
	}
	if err := w.help.Acquire(ctx, 1); err != nil {
		return err
	}
	getHelp()
	return w.count(ctx, &w.elves, -1, 0)
}

// count adds delta to *n; the arrival that brings it to full wakes Santa,
// other elves keep the door open, and the last elf out opens it.
func (w *elvesFirst) count(ctx context.Context, n *int, delta, full int) error {
	if err := w.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	defer w.mutex.Release(1)
	*n += delta
	switch {
	case delta > 0 && *n == full:
		w.santa.Release(1)
	case n == &w.elves && (delta > 0 || *n == 0):
		w.elfDoor.Release(1)
	}
	return nil
}
