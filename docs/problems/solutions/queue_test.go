package solutions_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/solutions"
)

type queue interface {
	Leader(ctx context.Context, dance func()) error
	Follower(ctx context.Context, dance func()) error
}

// Two leaders come at 0 and 1, two followers together at 10, then four of
// each at seeded times.
var queueProblem = check.Problem[func(solutions.NewSemaphore) queue]{
	Seeds: seeds,
	Scenario: func(r *check.Run, newQueue func(solutions.NewSemaphore) queue) {
		q := newQueue(r.NewSemaphore)
		dancer := func(who, what string, at int, join func(context.Context, func()) error) {
			r.Go(who, func(ctx context.Context) error {
				r.Sleep(time.Duration(at) * check.Tick)
				r.Record(who, "arrive to "+what, 0)
				return join(ctx, func() { r.Act(who, what, 0) })
			})
		}
		for i := range 6 {
			leaderAt, followerAt := i, 10
			if i >= 2 {
				leaderAt, followerAt = 20+r.Rand(20), 20+r.Rand(20)
			}
			dancer(name("leader", i), "lead", leaderAt, q.Leader)
			dancer(name("follower", i), "follow", followerAt, q.Follower)
		}
	},
	Rules: func(log []check.Event) error {
		return errors.Join(check.AtMost(log, "lead", 1), check.AtMost(log, "follow", 1), danceInPairs(log))
	},
}

// danceInPairs: nobody dances before a partner has come, and the n-th
// leader dances with the n-th follower.
func danceInPairs(log []check.Event) error {
	arrived, began := map[string]int{}, map[string]int{}
	partner := map[string]string{"lead": "follow", "follow": "lead"}
	for _, e := range log {
		switch {
		case e.End:
		case e.What == "arrive to lead" || e.What == "arrive to follow":
			arrived[e.What[len("arrive to "):]]++
		case partner[e.What] != "":
			began[e.What]++
			other := partner[e.What]
			if began[e.What] > arrived[other] || began[e.What] > began[other]+1 {
				return fmt.Errorf("%v: dance %d to %s, %d %ss arrived and %d began", e, began[e.What], e.What, arrived[other], other, began[other])
			}
		}
	}
	return nil
}

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
	type solution = func(solutions.NewSemaphore) queue
	check.Judge(t, queueProblem,
		func(n solutions.NewSemaphore) queue { return solutions.NewQueue(n) },
		check.Wrong[solution]{
			Name:     "NotExclusive",
			Solution: func(n solutions.NewSemaphore) queue { return openQueue{n(6, 0), n(6, 0)} },
			Want:     "more than 1 at once",
		})
}
