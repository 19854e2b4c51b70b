package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// River ferries hackers and serfs across a river in a boat of four seats.
// A boat may carry four hackers, four serfs, or two of each, never three of
// one kind and one of the other.
//
// The one who completes a boatload (the captain) lets its passengers out
// of their queues and keeps mutex until the boat has left, so no second
// load forms in between; each of the other three tells the captain it has
// boarded, and the captain, once aboard and told, rows. (A reusable barrier
// of four in place of those signals is wrong, for the reason given on
// Water.)
type River struct {
	mutex       sem.Semaphore // one permit: guards the counts, then held by the boat
	hackers     int           // waiting in their queues, not yet on a boat
	serfs       int
	hackerQueue sem.Semaphore
	serfQueue   sem.Semaphore
	boarded     sem.Semaphore // a passenger of the boat, not the captain, has boarded
}

// NewRiver returns a river bank with nobody waiting.
func NewRiver(newSemaphore NewSemaphore) *River {
	return &River{
		mutex:       newSemaphore(1, 1),
		hackerQueue: newSemaphore(4, 0),
		serfQueue:   newSemaphore(4, 0),
		boarded:     newSemaphore(3, 0),
	}
}

// Hacker waits for a boatload, boards, and rows if it is the captain.
func (r *River) Hacker(ctx context.Context, board, rowBoat func()) error {
	return r.cross(ctx, &r.hackers, &r.serfs, r.hackerQueue, r.serfQueue, board, rowBoat)
}

// Serf waits for a boatload, boards, and rows if it is the captain.
func (r *River) Serf(ctx context.Context, board, rowBoat func()) error {
	return r.cross(ctx, &r.serfs, &r.hackers, r.serfQueue, r.hackerQueue, board, rowBoat)
}

// cross is Hacker or Serf: mine and myQueue are the caller's kind, others
// and otherQueue the other kind.
func (r *River) cross(ctx context.Context, mine, others *int, myQueue, otherQueue sem.Semaphore, board, rowBoat func()) error {
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
	if !captain {
		r.boarded.Release(1)
		return nil
	}
	if err := r.boarded.Acquire(ctx, 3); err != nil {
		return err
	}
	rowBoat()
	r.mutex.Release(1)
	return nil
}
