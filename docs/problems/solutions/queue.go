package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// Queue pairs leaders with followers, one pair at a time: a leader dances
// only with a follower, and the next pair starts once both have danced.
//
// Whoever arrives second completes a pair and keeps mutex for it; the
// leader gives mutex back once its follower has danced too, so no third
// dancer can come between them.
type Queue struct {
	mutex     sem.Semaphore // one permit: guards the counts, then held by the dancing pair
	leaders   int           // waiting, with no follower yet
	followers int           // waiting, with no leader yet
	leader    sem.Semaphore // a follower has come for the waiting leader
	follower  sem.Semaphore // a leader has come for the waiting follower
	danced    sem.Semaphore // the follower of the dancing pair has danced
}

// NewQueue returns an empty queue.
func NewQueue(newSemaphore NewSemaphore) *Queue {
	return &Queue{
		mutex:    newSemaphore(1, 1),
		leader:   newSemaphore(1, 0),
		follower: newSemaphore(1, 0),
		danced:   newSemaphore(1, 0),
	}
}

// Leader waits for a follower, dances with it, and returns once it has
// danced too.
func (q *Queue) Leader(ctx context.Context, dance func()) error {
	if err := q.pair(ctx, &q.followers, q.follower, &q.leaders, q.leader); err != nil {
		return err
	}
	dance()
	if err := q.danced.Acquire(ctx, 1); err != nil {
		return err
	}
	q.mutex.Release(1)
	return nil
}

// Follower waits for a leader and dances with it.
func (q *Queue) Follower(ctx context.Context, dance func()) error {
	if err := q.pair(ctx, &q.leaders, q.leader, &q.followers, q.follower); err != nil {
		return err
	}
	dance()
	q.danced.Release(1)
	return nil
}

// pair takes a partner who waits (the count partners and its semaphore
// partner), or waits among mine to be taken. Either way it returns with
// mutex held for the pair.
func (q *Queue) pair(ctx context.Context, partners *int, partner sem.Semaphore, mine *int, me sem.Semaphore) error {
	if err := q.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	if *partners > 0 {
		*partners--
		partner.Release(1)
		return nil
	}
	*mine++
	q.mutex.Release(1)
	return me.Acquire(ctx, 1) // the partner took mutex for us
}
