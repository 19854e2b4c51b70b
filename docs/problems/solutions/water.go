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
// in between.
type Water struct {
	mutex    sem.Semaphore // one permit: guards the counts, then held by the molecule
	oxygen   int           // atoms waiting in their queues
	hydrogen int
	oxyQueue sem.Semaphore
	hydQueue sem.Semaphore
	bonded   *ReusableBarrier // the three atoms of a molecule
}

// NewWater returns an empty vessel.
func NewWater(newSemaphore NewSemaphore) *Water {
	return &Water{
		mutex:    newSemaphore(1, 1),
		oxyQueue: newSemaphore(1, 0),
		hydQueue: newSemaphore(2, 0),
		bonded:   NewReusableBarrier(newSemaphore, 3),
	}
}

// Oxygen waits for two hydrogens, bonds with them, and returns once the
// molecule is made.
func (w *Water) Oxygen(ctx context.Context, bond func()) error {
	if err := w.join(ctx, &w.oxygen, w.oxyQueue, bond); err != nil {
		return err
	}
	w.mutex.Release(1)
	return nil
}

// Hydrogen waits for another hydrogen and an oxygen, and bonds with them.
func (w *Water) Hydrogen(ctx context.Context, bond func()) error {
	return w.join(ctx, &w.hydrogen, w.hydQueue, bond)
}

// join is Oxygen or Hydrogen up to the end of the molecule: count and queue
// are the caller's kind. The atom arrives, waits in its queue, bonds, and
// waits at the barrier until all three have bonded.
func (w *Water) join(ctx context.Context, count *int, queue sem.Semaphore, bond func()) error {
	if err := w.arrive(ctx, count); err != nil {
		return err
	}
	if err := queue.Acquire(ctx, 1); err != nil {
		return err
	}
	bond()
	return w.bonded.Wait(ctx)
}

// arrive counts the atom in; if that completes a molecule, it lets its
// three atoms (this one too) out of their queues and keeps mutex.
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
