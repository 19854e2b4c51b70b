package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// Water lets hydrogen and oxygen atoms bond into water, one molecule at a
// time: two hydrogens and one oxygen call bond together, and the atoms of
// the next molecule wait until all three have bonded.
//
// The atom that completes a molecule (the second hydrogen, or the oxygen)
// lets the other two out of their queues and keeps mutex; the oxygen gives
// it back once all three have bonded, so nobody else can start a molecule
// in between. Each hydrogen tells the oxygen it has bonded.
//
// A reusable barrier of three in place of the hydrogens' signal looks the
// same but is wrong: its three are different atoms in every round, so an
// atom of the next molecule can take the way out left for a slow hydrogen
// of this one, and then two molecules share the barrier's count (the
// checker's slow goroutines found that in an earlier edition of this
// answer).
type Water struct {
	mutex     sem.Semaphore // one permit: guards the counts, then held by the molecule
	oxygen    int           // atoms waiting in their queues
	hydrogen  int
	oxyQueue  sem.Semaphore
	hydQueue  sem.Semaphore
	hydBonded sem.Semaphore // a hydrogen of the molecule has bonded
}

// NewWater returns an empty vessel.
func NewWater(newSemaphore NewSemaphore) *Water {
	return &Water{
		mutex:     newSemaphore(1, 1),
		oxyQueue:  newSemaphore(1, 0),
		hydQueue:  newSemaphore(2, 0),
		hydBonded: newSemaphore(2, 0),
	}
}

// Oxygen waits for two hydrogens, bonds with them, and, once they have
// bonded too, lets the next molecule form.
func (w *Water) Oxygen(ctx context.Context, bond func()) error {
	if err := w.join(ctx, &w.oxygen, w.oxyQueue, bond); err != nil {
		return err
	}
	if err := w.hydBonded.Acquire(ctx, 2); err != nil {
		return err
	}
	w.mutex.Release(1)
	return nil
}

// Hydrogen waits for another hydrogen and an oxygen, and bonds with them.
func (w *Water) Hydrogen(ctx context.Context, bond func()) error {
	if err := w.join(ctx, &w.hydrogen, w.hydQueue, bond); err != nil {
		return err
	}
	w.hydBonded.Release(1)
	return nil
}

// join counts the atom in, waits in its queue until a molecule takes it,
// and bonds.
func (w *Water) join(ctx context.Context, count *int, queue sem.Semaphore, bond func()) error {
	if err := w.arrive(ctx, count); err != nil {
		return err
	}
	if err := queue.Acquire(ctx, 1); err != nil {
		return err
	}
	bond()
	return nil
}

// arrive counts an atom in; if that completes a molecule, it lets the
// molecule's atoms out of the queues and keeps the mutex for it.
func (w *Water) arrive(ctx context.Context, count *int) error {
	if err := w.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	*count++
	if w.hydrogen < 2 || w.oxygen < 1 {
		w.mutex.Release(1)
		return nil
	}
	w.hydrogen -= 2
	w.oxygen--
	w.hydQueue.Release(2)
	w.oxyQueue.Release(1)
	return nil
}
