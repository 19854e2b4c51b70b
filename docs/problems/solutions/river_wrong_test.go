package solutions_test

import (
	"context"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/solutions"
)

// barrierRiver is this book's earlier answer to the river crossing, with
// H2O's flaw: the four of a boat meet at a reusable barrier of four once
// on board, and the captain gives the mutex back once it is through. The
// barrier's four are different passengers every boat, so a passenger of
// the next boat can take the way out left for a slow one of this boat,
// and then two boats share the barrier's count.
type barrierRiver struct {
	mutex       sem.Semaphore // one permit: guards the counts, then held by the boat
	hackers     int           // waiting in their queues, not yet on a boat
	serfs       int
	hackerQueue sem.Semaphore
	serfQueue   sem.Semaphore
	aboard      *solutions.ReusableBarrier // the four of a boat
}

// newBarrierRiver returns a river bank with nobody waiting.
func newBarrierRiver(newSemaphore check.NewSemaphore) *barrierRiver {
	return &barrierRiver{
		mutex:       newSemaphore(1, 1),
		hackerQueue: newSemaphore(4, 0),
		serfQueue:   newSemaphore(4, 0),
		aboard:      solutions.NewReusableBarrier(newSemaphore, 4),
	}
}

// Hacker waits for a boatload, boards, and rows if it is the captain.
func (r *barrierRiver) Hacker(ctx context.Context, board, rowBoat func()) error {
	return r.cross(ctx, &r.hackers, &r.serfs, r.hackerQueue, r.serfQueue, board, rowBoat)
}

// Serf waits for a boatload, boards, and rows if it is the captain.
func (r *barrierRiver) Serf(ctx context.Context, board, rowBoat func()) error {
	return r.cross(ctx, &r.serfs, &r.hackers, r.serfQueue, r.hackerQueue, board, rowBoat)
}

// cross is Hacker or Serf: mine and myQueue are the caller's kind, others
// and otherQueue the other kind.
func (r *barrierRiver) cross(ctx context.Context, mine, others *int, myQueue, otherQueue sem.Semaphore, board, rowBoat func()) error {
	if err := r.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	*mine++
	captain := true
	switch {
	case *mine == 4:
		*mine = 0
		myQueue.Release(4)
	case *mine == 2 && *others >= 2:
		*mine = 0
		*others -= 2
		myQueue.Release(2)
		otherQueue.Release(2)
	default:
		captain = false
		r.mutex.Release(1)
	}
	if err := myQueue.Acquire(ctx, 1); err != nil {
		return err
	}
	board()
	if err := r.aboard.Wait(ctx); err != nil {
		return err
	}
	if captain {
		rowBoat()
		r.mutex.Release(1)
	}
	return nil
}
