package check

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// contend has four goroutines take a mutex three times each and act in
// it: a scenario whose log depends on every choice the scheduler makes.
func contend(r *Run) {
	mutex := r.NewSemaphore(1, 1)
	for i := range 4 {
		who := fmt.Sprint("g", i)
		r.Go(who, func(ctx context.Context) error {
			for k := range 3 {
				if err := mutex.Acquire(ctx, 1); err != nil {
					return err
				}
				r.Act(who, "in", k)
				mutex.Release(1)
			}
			return nil
		})
	}
}

// runOnce runs scenario on seed in a bubble and returns its log.
func runOnce(t *testing.T, seed uint64, laggards bool, scenario func(*Run)) (log []Event, slow []string) {
	p := Problem[func(*Run)]{
		Seeds:    1,
		Scenario: func(r *Run, s func(*Run)) { s(r) },
		Laggards: laggards,
		Rules:    func(l []Event) error { log = l; return nil },
	}
	t.Setenv("CHECK_SEED", fmt.Sprint(seed))
	require.NoError(t, p.Verify(t, func(r *Run) {
		scenario(r)
		r.Go("spy", func(context.Context) error { // started last, runs among them
			for _, g := range r.ready {
				if g.slow {
					slow = append(slow, g.name)
				}
			}
			return nil
		})
	}))
	return log, slow
}

// The same seed makes the same run: the verdict cannot depend on the Go
// scheduler. Different seeds make different runs.
func TestSameSeedSameRun(t *testing.T) {
	distinct := map[string]bool{}
	for seed := range uint64(20) {
		first, _ := runOnce(t, seed, true, contend)
		for range 5 {
			again, _ := runOnce(t, seed, true, contend)
			require.Equal(t, first, again, "seed %d ran differently", seed)
		}
		distinct[fmt.Sprint(first)] = true
	}
	assert.Greater(t, len(distinct), 10, "the seeds should vary the runs")
}

// Every serving order is used by some seed, lockstep by seeds 0 and 1
// only, and slow goroutines appear only where laggards are allowed.
func TestSeedsReachEveryChoice(t *testing.T) {
	orders := map[order]bool{}
	slowSeen := false
	for seed := range uint64(40) {
		r := newRun(seed, true)
		r.cancel()
		orders[r.order] = true
		assert.Equal(t, seed < 2, r.lockstep, "seed %d", seed)
		_, slow := runOnce(t, seed, true, contend)
		slowSeen = slowSeen || len(slow) > 0
		_, slow = runOnce(t, seed, false, contend)
		assert.Empty(t, slow, "seed %d made %v slow without laggards", seed, slow)
	}
	assert.Len(t, orders, 3)
	assert.True(t, slowSeen, "no seed made a goroutine slow")
}

// The first-come order serves the oldest waiter; the last-come the newest.
func TestServingOrders(t *testing.T) {
	for _, tt := range []struct {
		order order
		want  []string
	}{
		{firstCome, []string{"first", "second", "third"}},
		{lastCome, []string{"third", "second", "first"}},
	} {
		t.Run(tt.order.String(), func(t *testing.T) {
			var got []string
			seed := map[order]uint64{firstCome: 0, lastCome: 1}[tt.order]
			log, _ := runOnce(t, seed, false, func(r *Run) {
				s := r.NewSemaphore(1, 0)
				for i, who := range []string{"first", "second", "third"} {
					r.Go(who, func(ctx context.Context) error {
						r.Sleep(Tick * 10 * time.Duration(i))
						if err := s.Acquire(ctx, 1); err != nil {
							return err
						}
						r.Record(who, "got", 0)
						s.Release(1)
						return nil
					})
				}
				r.Go("releaser", func(context.Context) error {
					r.Sleep(50 * Tick)
					s.Release(1)
					return nil
				})
			})
			for _, e := range log {
				got = append(got, e.Who)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
