package solutions_test

import (
	"context"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/solutions"
)

// barrierWater is this book's earlier answer to H2O: the three atoms of a
// molecule meet at a reusable barrier of three after they bond, and the
// oxygen gives the mutex back once it is through. The barrier's three are
// different atoms in every round, so an atom of the next molecule can take
// the way out left for a slow hydrogen of this one; then two molecules
// share the barrier's count, and an atom waits for ever.
type barrierWater struct {
	mutex    sem.Semaphore // one permit: guards the counts, then held by the molecule
	oxygen   int           // atoms waiting in their queues
	hydrogen int
	oxyQueue sem.Semaphore
	hydQueue sem.Semaphore
	bonded   *solutions.ReusableBarrier // the three atoms of a molecule
}

// newBarrierWater returns an empty vessel.
func newBarrierWater(newSemaphore check.NewSemaphore) *barrierWater {
	return &barrierWater{
		mutex:    newSemaphore(1, 1),
		oxyQueue: newSemaphore(1, 0),
		hydQueue: newSemaphore(2, 0),
		bonded:   solutions.NewReusableBarrier(newSemaphore, 3),
	}
}

// Oxygen waits for two hydrogens, bonds with them, and returns once the
// molecule is made.
func (w *barrierWater) Oxygen(ctx context.Context, bond func()) error {
	if err := w.join(ctx, &w.oxygen, w.oxyQueue, bond); err != nil {
		return err
	}
	w.mutex.Release(1)
	return nil
}

// Hydrogen waits for another hydrogen and an oxygen, and bonds with them.
func (w *barrierWater) Hydrogen(ctx context.Context, bond func()) error {
	return w.join(ctx, &w.hydrogen, w.hydQueue, bond)
}

// join is Oxygen or Hydrogen up to the end of the molecule: count and queue
// are the caller's kind. The atom arrives, waits in its queue, bonds, and
// waits at the barrier until all three have bonded.
func (w *barrierWater) join(ctx context.Context, count *int, queue sem.Semaphore, bond func()) error {
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
func (w *barrierWater) arrive(ctx context.Context, count *int) error {
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
