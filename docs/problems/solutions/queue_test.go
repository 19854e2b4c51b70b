package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// openQueue lets every leader go as soon as any follower has come: pairs
// form, but dance all at once.
type openQueue struct{ leader, follower sem.Semaphore }

func (q openQueue) Leader(ctx context.Context, dance func()) error {
	return q.meet(ctx, q.follower, q.leader, dance)
}

func (q openQueue) Follower(ctx context.Context, dance func()) error {
	return q.meet(ctx, q.leader, q.follower, dance)
}

func (q openQueue) meet(ctx context.Context, partner, me sem.Semaphore, dance func()) error {
	partner.Release(1)
	if err := me.Acquire(ctx, 1); err != nil {
		return err
	}
	dance()
	return nil
}

func TestQueue(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.Queue
	judgeAll(t, judge.Problem7,
		official(func(n check.NewSemaphore) judge.Queue { return solutions.NewQueue(n) }, check.Right[solution]{Name: "PairMutexes", Solution: func(n check.NewSemaphore) judge.Queue { return newPairMutexes(n) }}),
		check.Wrong[solution]{
			Name:     "NotExclusive",
			Solution: func(n check.NewSemaphore) judge.Queue { return openQueue{n(6, 0), n(6, 0)} },
			Want:     "more than 1 at once",
		})
}
