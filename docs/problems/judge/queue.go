package judge

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/semacat/sem/docs/problems/check"
)

// Queue is what problem 7 asks for: leaders and followers dance in pairs.
type Queue interface {
	Leader(ctx context.Context, dance func()) error
	Follower(ctx context.Context, dance func()) error
}

// Problem7 is the queue. The scenario:
// Two leaders come at 0 and 1, two followers together at 10, then four of
// each at seeded times.
var Problem7 = check.Problem[func(check.NewSemaphore) Queue]{
	Seeds:    seeds,
	Laggards: true,
	Scenario: func(r *check.Run, newQueue func(check.NewSemaphore) Queue) {
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
