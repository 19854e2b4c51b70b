package solutions_test

import (
	"context"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
)

// heldMutexElvesFirst is Santa Claus with Santa holding the mutex, so the
// counts are right, but looking at the elves first: he counts a group out
// as he helps it, and the elves' door opens once the group has had its
// help. When a group and the whole herd both wait as he wakes, he helps
// the elves while the reindeer wait.
type heldMutexElvesFirst struct {
	m, wake, door, hitch, help sem.Semaphore
	reindeer, elves, helped    int
}

func newHeldMutexElvesFirst(n check.NewSemaphore) *heldMutexElvesFirst {
	return &heldMutexElvesFirst{m: n(1, 1), wake: n(2, 0), door: n(1, 1),
		hitch: n(judge.Herd, 0), help: n(judge.ElfGroup, 0)}
}

func (w *heldMutexElvesFirst) Santa(ctx context.Context, prepareSleigh, helpElves func()) error {
	for {
		if err := w.wake.Acquire(ctx, 1); err != nil {
			return err
		}
		if err := w.m.Acquire(ctx, 1); err != nil {
			return err
		}
		if w.elves == judge.ElfGroup { // the elves first: wrong
			w.elves = 0
			helpElves()
			w.help.Release(judge.ElfGroup)
		} else if w.reindeer == judge.Herd {
			w.reindeer = 0
			prepareSleigh()
			w.hitch.Release(judge.Herd)
		}
		w.m.Release(1)
	}
}

func (w *heldMutexElvesFirst) Reindeer(ctx context.Context, getHitched func()) error {
	if err := w.m.Acquire(ctx, 1); err != nil {
		return err
	}
	if w.reindeer++; w.reindeer == judge.Herd {
		w.wake.Release(1)
	}
	w.m.Release(1)
	if err := w.hitch.Acquire(ctx, 1); err != nil {
		return err
	}
	getHitched()
	return nil
}

func (w *heldMutexElvesFirst) Elf(ctx context.Context, getHelp func()) error {
	if err := w.door.Acquire(ctx, 1); err != nil {
		return err
	}
	if err := w.m.Acquire(ctx, 1); err != nil {
		return err
	}
	if w.elves++; w.elves == judge.ElfGroup {
		w.wake.Release(1) // the door stays shut
	} else {
		w.door.Release(1)
	}
	w.m.Release(1)
	if err := w.help.Acquire(ctx, 1); err != nil {
		return err
	}
	getHelp()
	if err := w.m.Acquire(ctx, 1); err != nil {
		return err
	}
	if w.helped++; w.helped == judge.ElfGroup {
		w.helped = 0
		w.door.Release(1)
	}
	w.m.Release(1)
	return nil
}
