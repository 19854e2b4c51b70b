package check_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem/docs/problems/check"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// scenario is a problem whose solution is the scenario itself.
func scenario(seeds int, rules func([]check.Event) error) check.Problem[func(*check.Run)] {
	return check.Problem[func(*check.Run)]{
		Seeds:    seeds,
		Scenario: func(r *check.Run, run func(*check.Run)) { run(r) },
		Rules:    rules,
	}
}

func noRules([]check.Event) error { return nil }

func TestVerdicts(t *testing.T) {
	tests := []struct {
		name    string
		run     func(r *check.Run)
		wantErr string // empty: accepted
	}{
		{"Accepted", func(r *check.Run) {
			r.Go("a", func(context.Context) error { r.Act("a", "x", 0); return nil })
		}, ""},
		{"Deadlock", func(r *check.Run) {
			s := r.NewSemaphore(1, 0)
			r.Go("a", func(ctx context.Context) error { return s.Acquire(ctx, 1) })
		}, "a: still waiting at the deadline: deadlock"},
		{"Panic", func(r *check.Run) {
			s := r.NewSemaphore(1, 1)
			r.Go("a", func(context.Context) error { s.Release(1); return nil })
		}, "a: panic: check: Release(1) of the semaphore made at check_test.go:"},
		{"BusyWait", func(r *check.Run) {
			s := r.NewSemaphore(1, 0)
			r.Go("poller", func(ctx context.Context) error {
				for !s.TryAcquire(1) && ctx.Err() == nil {
				}
				return nil
			})
			r.Go("releaser", func(context.Context) error { r.Sleep(100 * check.Tick); s.Release(1); return nil })
		}, "poller: busy-waits: its TryAcquire failed 16 times in a row"},
		{"TriesAndWaits", func(r *check.Run) {
			s := r.NewSemaphore(1, 0)
			r.Go("trier", func(ctx context.Context) error {
				for range 15 {
					s.TryAcquire(1)
				}
				r.Record("trier", "gives up trying", 0)
				for range 15 {
					s.TryAcquire(1)
				}
				return s.Acquire(ctx, 1)
			})
			r.Go("releaser", func(context.Context) error { r.Sleep(100 * check.Tick); s.Release(1); return nil })
		}, ""},
		{"ServerStopsWhenWorkersReturn", func(r *check.Run) {
			s := r.NewSemaphore(1, 0)
			r.Serve("server", func(ctx context.Context) error { return s.Acquire(ctx, 1) })
			r.Go("a", func(context.Context) error { return nil })
		}, ""},
		{"ServerInDeadlock", func(r *check.Run) {
			s := r.NewSemaphore(1, 0)
			r.Serve("server", func(ctx context.Context) error { return s.Acquire(ctx, 1) })
			r.Go("a", func(ctx context.Context) error { return s.Acquire(ctx, 1) })
		}, "server: still waiting at the deadline: deadlock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := scenario(5, noRules).Verify(t, tt.run)
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Contains(t, err.Error(), "(5 of 5 runs failed)")
		})
	}
}

// Seed 0 nudges every semaphore operation by one tick, so a goroutine that
// acquires, releases and acts takes exactly four ticks; the events carry
// the simulated time.
func TestSeedZeroIsLockstep(t *testing.T) {
	var log []check.Event
	err := scenario(1, func(l []check.Event) error { log = l; return nil }).Verify(t, func(r *check.Run) {
		s := r.NewSemaphore(1, 1)
		r.Go("a", func(ctx context.Context) error {
			if err := s.Acquire(ctx, 1); err != nil {
				return err
			}
			s.Release(1)
			r.Act("a", "x", 7)
			return nil
		})
	})
	require.NoError(t, err)
	assert.Equal(t, []check.Event{
		{At: 3 * check.Tick, Who: "a", What: "x", N: 7},
		{At: 5 * check.Tick, Who: "a", What: "x", N: 7, End: true},
	}, log)
}

func TestRules(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	log := []check.Event{
		{At: ms(0), Who: "a", What: "x"},
		{At: ms(1), Who: "b", What: "y"},
		{At: ms(2), Who: "b", What: "x"},
		{At: ms(3), Who: "a", What: "x", End: true},
		{At: ms(4), Who: "b", What: "x", End: true},
		{At: ms(4), Who: "b", What: "y", End: true},
	}
	assert.NoError(t, check.AtMost(log, "x", 2))
	assert.EqualError(t, check.AtMost(log, "x", 1), "2ms b: x 0 while [a] were already at it: more than 1 at once")
	assert.NoError(t, check.AtMost(log, "y", 1))
	assert.EqualError(t, check.After(log, "y", "x"), "1ms b: y 0, before any x ended")
	assert.NoError(t, check.After(log, "z", "x"), "nobody begins z")
}

// The weak semaphore serves the newest waiter first.
func TestWeakSemaphoreServesTheNewest(t *testing.T) {
	var log []check.Event
	err := scenario(1, func(l []check.Event) error { log = l; return nil }).Verify(t, func(r *check.Run) {
		s := r.NewWeakSemaphore(1, 0)
		for i, who := range []string{"first", "second", "third"} {
			r.Go(who, func(ctx context.Context) error {
				r.Sleep(time.Duration(10*i) * check.Tick)
				if err := s.Acquire(ctx, 1); err != nil {
					return err
				}
				r.Record(who, "got", 0)
				s.Release(1)
				return nil
			})
		}
		r.Go("releaser", func(context.Context) error {
			r.Sleep(50 * check.Tick)
			s.Release(1)
			return nil
		})
	})
	require.NoError(t, err)
	var order []string
	for _, e := range log {
		order = append(order, e.Who)
	}
	assert.Equal(t, []string{"third", "second", "first"}, order)
}

// A verdict's replay line carries the environment the test needs: a
// workspace test skips without SEMACAT_EXERCISE.
func TestReplayLineCarriesTheEnvironment(t *testing.T) {
	t.Setenv("SEMACAT_EXERCISE", "1")
	t.Setenv("CHECK_SEEDS", "2")
	err := scenario(5, noRules).Verify(t, func(r *check.Run) {
		r.Go("a", func(context.Context) error { return errors.New("no") })
	})
	require.Error(t, err)
	// Other variables of the run (make test's SEMACAT_LONG) may stand
	// between them; the ones this test set must be there.
	assert.Regexp(t, `SEMACAT_EXERCISE=1 (\S+ )*CHECK_SEED=0 go test -v -run '\^TestReplayLineCarriesTheEnvironment\$'`, err.Error())
	assert.NotContains(t, err.Error(), "CHECK_SEEDS=", "the replay chooses its one seed")
}
