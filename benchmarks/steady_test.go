package benchmarks

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
)

func TestSteadyRule(t *testing.T) {
	c := steadyConfig{window: 10 * time.Millisecond, minWarmup: 60 * time.Millisecond, maxWarmup: 300 * time.Millisecond}
	ms := time.Millisecond
	for _, tc := range []struct {
		name    string
		warmed  time.Duration
		windows []float64
		want    bool
	}{
		{"stable but too early: a convoy may still form", 50 * ms, []float64{60, 60, 60, 60, 60}, false},
		{"stable after the minimum", 60 * ms, []float64{60, 60, 60, 300, 310, 290}, true},
		{"a regime change in the last windows", 60 * ms, []float64{60, 60, 60, 60, 300, 310}, false},
		{"within the spread", 80 * ms, []float64{100, 149, 120}, true},
		{"beyond the spread", 80 * ms, []float64{100, 151, 120}, false},
		{"a window without an op is not steady", 80 * ms, []float64{0, 0, 0}, false},
		{"too few windows", 80 * ms, []float64{100, 100}, false},
		{"never steady: stop at the maximum", 300 * ms, []float64{1, 100, 10000}, true},
	} {
		assert.Equal(t, tc.want, c.steady(tc.warmed, tc.windows), tc.name)
	}
}

// paced is a semaphore whose ops first sleep for delay(time since start):
// a cost per op that changes as the run goes on (in a synctest bubble).
type paced struct {
	sem.Semaphore
	start time.Time
	delay func(elapsed time.Duration) time.Duration
}

func (s paced) Acquire(ctx context.Context, n int64) error {
	time.Sleep(s.delay(time.Since(s.start)))
	return s.Semaphore.Acquire(ctx, n)
}

// measurePaced runs the steady-state measurement of make bench, measuring
// for d, with 4 goroutines on a semaphore of 4 whose ops take delay.
func measurePaced(d time.Duration, delay func(elapsed time.Duration) time.Duration) measured {
	sc := Scenario{Goroutines: 4, Size: 4, MaxWeight: 1}
	s := paced{chansem.New(4), time.Now(), delay}
	m, _ := sc.steady(s, defaultSteadyFor(d), false, func() {}, func() {})
	return m
}

// A regime change before the minimum warm-up (a convoy forming after a
// preemption or two) is not measured: only the later regime is.
func TestSteadyStateMeasuresTheLaterRegime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Stable for 3 windows in the fast regime, which ends between two
		// of its ops, after 45ms: the slow ops then end 0.1ms past each
		// millisecond, never at the instant a window or the measurement
		// starts or ends, where synctest would order the tie at random and
		// count or miss one op per goroutine.
		m := measurePaced(20*time.Millisecond, func(elapsed time.Duration) time.Duration {
			if elapsed < 45*time.Millisecond+50*time.Microsecond {
				return 100 * time.Microsecond
			}
			return time.Millisecond
		})
		assert.GreaterOrEqual(t, m.warmup, steadyMinWarmup)
		// 4 goroutines at 1ms per op: 250µs per op.
		assert.InEpsilon(t, 250e3, m.nsPerOp(), 0.05, "measured %v per op after %v", time.Duration(m.nsPerOp()), m.warmup)
	})
}

// While the time per op keeps changing, the warm-up goes on past the
// minimum, and the measurement sees the settled cost.
func TestSteadyStateWaitsUntilStable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Doubling every 20ms from 10µs, flat at 640µs from 120ms.
		m := measurePaced(20*time.Millisecond, func(elapsed time.Duration) time.Duration {
			return 10 * time.Microsecond << min(int(elapsed/(20*time.Millisecond)), 6)
		})
		assert.Greater(t, m.warmup, 120*time.Millisecond)
		assert.Less(t, m.warmup, steadyMaxWarmup)
		assert.InEpsilon(t, 160e3, m.nsPerOp(), 0.05, "measured %v per op after %v", time.Duration(m.nsPerOp()), m.warmup)
	})
}

// A run that never settles stops warming up at the maximum.
func TestSteadyStateGivesUpAtTheMaximum(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// 100µs and 400µs in turn, for 10ms each.
		m := measurePaced(10*time.Millisecond, func(elapsed time.Duration) time.Duration {
			if elapsed/(10*time.Millisecond)%2 == 1 {
				return 400 * time.Microsecond
			}
			return 100 * time.Microsecond
		})
		assert.Equal(t, steadyMaxWarmup, m.warmup)
	})
}

// defaultSteadyFor is the rule of make bench, measuring for d.
func defaultSteadyFor(d time.Duration) steadyConfig {
	c := defaultSteady()
	c.measure = d
	return c
}

// A steady-state run's goroutines start queued: holdFree takes every
// permit that is free, and no other, and gives back what it took.
func TestHoldFreeTakesWhatIsFree(t *testing.T) {
	s := chansem.New(4)
	assert.True(t, s.TryAcquire(1))
	release := holdFree(s, 4)
	assert.False(t, s.TryAcquire(1), "a permit was left free for a goroutine to take unqueued")
	release()
	s.Release(1)
	requireAllFree(t, s, 4)
}

// TestUntilOps: a measurement that counted no op is taken again, up to
// measureTries times in all, and the first that counted one is kept.
func TestUntilOps(t *testing.T) {
	for _, tc := range []struct {
		ops   []int64
		calls int
		want  int64
	}{
		{[]int64{7}, 1, 7},
		{[]int64{0, 0, 5}, 3, 5},
		{[]int64{0, 0, 0, 9}, measureTries, 0},
	} {
		calls := 0
		m := untilOps(func() measured {
			calls++
			return measured{ops: tc.ops[calls-1]}
		})
		assert.Equal(t, tc.calls, calls, "ops %v", tc.ops)
		assert.Equal(t, tc.want, m.ops, "ops %v", tc.ops)
	}
}
