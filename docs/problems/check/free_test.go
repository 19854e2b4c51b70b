package check_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/docs/problems/check"
)

// racyCount counts two goroutines' arrivals in a plain variable with no
// mutex around it, on a scenario whose every run passes its rules: only
// the race detector can reject it, and only in a free run. Each records
// an event and draws a number before counting and one after: a free run
// whose recording ordered the goroutines would hide the race.
func racyCount(r *check.Run) {
	n := 0
	s := r.NewSemaphore(1, 1)
	for _, who := range []string{"a", "b"} {
		r.Go(who, func(ctx context.Context) error {
			r.Sleep(check.Tick)
			r.Record(who, "come", r.Rand(2))
			n++ // unguarded
			r.Record(who, "counted", 0)
			if err := s.Acquire(ctx, 1); err != nil {
				return err
			}
			s.Release(1)
			return nil
		})
	}
}

func TestFreeRun(t *testing.T) {
	p := scenario(3, noRules)
	require.NoError(t, p.FreeRun(t, 0, func(r *check.Run) {
		s := r.NewSemaphore(2, 0)
		r.Go("waiter", func(ctx context.Context) error { return s.Acquire(ctx, 2) })
		r.Go("giver", func(context.Context) error { r.Act("giver", "give", 0); s.Release(2); return nil })
	}))
	err := p.FreeRun(t, 0, func(r *check.Run) {
		s := r.NewSemaphore(1, 0)
		r.Go("a", func(ctx context.Context) error { return s.Acquire(ctx, 1) })
	})
	require.Error(t, err, "a free run that deadlocks must fail")
	assert.Contains(t, err.Error(), "a free run (real goroutines, all at once, on real semaphores) failed")
	assert.Contains(t, err.Error(), "a: still waiting at the deadline: deadlock")
}

// TestRaceHelper runs racyCount as TestFreeRunSeesRaces asks, in a process
// of its own: the race detector fails the whole test binary.
func TestRaceHelper(t *testing.T) {
	switch os.Getenv("CHECK_TEST_RACE") {
	case "verify":
		require.NoError(t, scenario(seedsToMeet, noRules).Verify(t, racyCount))
	case "test":
		scenario(seedsToMeet, noRules).Test(t, racyCount)
	default:
		t.Skip("run by TestFreeRunSeesRaces")
	}
}

const seedsToMeet = 30

// Under go test -race, Test reports a data race that the seeded runs of
// Verify cannot see.
func TestFreeRunSeesRaces(t *testing.T) {
	if !check.RaceEnabled {
		t.Skip("the race detector is off: run go test -race")
	}
	run := func(mode string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestRaceHelper$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "CHECK_TEST_RACE="+mode)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("verify")
	require.NoError(t, err, "the seeded runs alone should be blind to the race:\n%s", out)
	assert.NotContains(t, out, "DATA RACE")

	out, err = run("test")
	require.Error(t, err, "Test under -race should report the race:\n%s", out)
	assert.Contains(t, out, "WARNING: DATA RACE")
	assert.Contains(t, out, "free_test.go:", "the race's stacks name the solution's line")
}
