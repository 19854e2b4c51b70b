package solutions

import (
	"context"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/judge"
)

// Sizes of Santa's problem.
const (
	Herd     = judge.Herd     // reindeer that pull the sleigh
	ElfGroup = judge.ElfGroup // elves that Santa helps at once
)

// Workshop is Santa Claus's problem. Santa sleeps until either all nine
// reindeer are back from vacation, and then prepares the sleigh and
// hitches them, or three elves need help, and then helps those three. If
// both are waiting when he wakes, the reindeer go first.
//
// The ninth reindeer and the third elf of a group each wake Santa with one
// permit of the santa semaphore, so a wake-up is never lost; Santa looks
// at the reindeer count first. Elves come in at a door that lets in one
// group at a time: the third elf keeps it shut, and the last of the group
// to be helped opens it again.
type Workshop struct {
	mutex    sem.Semaphore // one permit: guards reindeer and elves
	reindeer int           // back from vacation, not yet hitched
	elves    int           // in the current group
	santa    sem.Semaphore // wakes Santa: at most a herd and a group pending
	sleigh   sem.Semaphore // the sleigh is ready: one permit per reindeer
	help     sem.Semaphore // Santa has helped: one permit per elf of the group
	elfDoor  sem.Semaphore // one permit: lets elves into the next group
}

// NewWorkshop returns a workshop where Santa sleeps and nobody waits.
func NewWorkshop(newSemaphore NewSemaphore) *Workshop {
	return &Workshop{
		mutex:   newSemaphore(1, 1),
		santa:   newSemaphore(2, 0),
		sleigh:  newSemaphore(Herd, 0),
		help:    newSemaphore(ElfGroup, 0),
		elfDoor: newSemaphore(1, 1),
	}
}

// Santa sleeps until woken, then prepares the sleigh or helps elves, until
// ctx is done.
func (w *Workshop) Santa(ctx context.Context, prepareSleigh, helpElves func()) error {
	for {
		if err := w.santa.Acquire(ctx, 1); err != nil {
			return err
		}
		if err := w.mutex.Acquire(ctx, 1); err != nil {
			return err
		}
		herd := w.reindeer == Herd
		if herd {
			w.reindeer = 0
		}
		w.mutex.Release(1)
		if herd {
			prepareSleigh()
			w.sleigh.Release(Herd)
		} else {
			helpElves()
			w.help.Release(ElfGroup)
		}
	}
}

// Reindeer comes back from vacation and waits until it is hitched to the
// sleigh, then calls getHitched.
func (w *Workshop) Reindeer(ctx context.Context, getHitched func()) error {
	if err := w.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	w.reindeer++
	if w.reindeer == Herd {
		w.santa.Release(1)
	}
	w.mutex.Release(1)
	if err := w.sleigh.Acquire(ctx, 1); err != nil {
		return err
	}
	getHitched()
	return nil
}

// Elf waits for a group of three and for Santa's help, then calls getHelp.
func (w *Workshop) Elf(ctx context.Context, getHelp func()) error {
	if err := w.elfDoor.Acquire(ctx, 1); err != nil {
		return err
	}
	if err := w.countElf(ctx, 1); err != nil {
		return err
	}
	if err := w.help.Acquire(ctx, 1); err != nil {
		return err
	}
	getHelp()
	return w.countElf(ctx, -1)
}

// countElf counts an elf into (delta 1) or out of (delta -1) the group.
// The third in wakes Santa and keeps the door shut; the last out opens it.
func (w *Workshop) countElf(ctx context.Context, delta int) error {
	if err := w.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	defer w.mutex.Release(1)
	w.elves += delta
	switch {
	case delta > 0 && w.elves == ElfGroup:
		w.santa.Release(1)
	case delta > 0, w.elves == 0:
		w.elfDoor.Release(1)
	}
	return nil
}
