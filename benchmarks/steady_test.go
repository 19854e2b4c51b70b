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

// switching is a semaphore whose ops take fast until after, then slow:
// the regime change of a convoy forming (in a synctest bubble).
type switching struct {
	sem.Semaphore
	start             time.Time
	after, fast, slow time.Duration
}

func (s switching) Acquire(ctx context.Context, n int64) error {
	d := s.fast
	if time.Since(s.start) >= s.after {
		d = s.slow
	}
	time.Sleep(d)
	return s.Semaphore.Acquire(ctx, n)
}

// A regime change before the minimum warm-up (a convoy forming after a
// preemption or two) is not measured: only the later regime is.
func TestSteadyStateMeasuresTheLaterRegime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sc := Scenario{Goroutines: 4, Size: 4, MaxWeight: 1}
		// Stable for 3 windows in the fast regime, which ends at 45ms.
		s := switching{chansem.New(4), time.Now(), 45 * time.Millisecond, 100 * time.Microsecond, time.Millisecond}
		m, _ := sc.steady(s, defaultSteadyFor(20*time.Millisecond), false, func() {}, func() {})
		assert.GreaterOrEqual(t, m.warmup, steadyMinWarmup)
		// 4 goroutines at 1ms per op: 250µs per op.
		assert.InEpsilon(t, 250e3, m.nsPerOp(), 0.05, "measured %v per op after %v", time.Duration(m.nsPerOp()), m.warmup)
	})
}

// ramping is a semaphore whose ops slow down, doubling every 20ms, until
// flat (in a synctest bubble).
type ramping struct {
	sem.Semaphore
	start    time.Time
	from     time.Duration
	doubling int
}

func (s ramping) Acquire(ctx context.Context, n int64) error {
	d := s.from << min(int(time.Since(s.start)/(20*time.Millisecond)), s.doubling)
	time.Sleep(d)
	return s.Semaphore.Acquire(ctx, n)
}

// While the time per op keeps changing, the warm-up goes on past the
// minimum, and the measurement sees the settled cost.
func TestSteadyStateWaitsUntilStable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sc := Scenario{Goroutines: 4, Size: 4, MaxWeight: 1}
		s := ramping{chansem.New(4), time.Now(), 10 * time.Microsecond, 6} // flat at 640µs from 120ms
		m, _ := sc.steady(s, defaultSteadyFor(20*time.Millisecond), false, func() {}, func() {})
		assert.Greater(t, m.warmup, 120*time.Millisecond)
		assert.Less(t, m.warmup, steadyMaxWarmup)
		assert.InEpsilon(t, 160e3, m.nsPerOp(), 0.05, "measured %v per op after %v", time.Duration(m.nsPerOp()), m.warmup)
	})
}

// A run that never settles stops warming up at the maximum.
func TestSteadyStateGivesUpAtTheMaximum(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sc := Scenario{Goroutines: 4, Size: 4, MaxWeight: 1}
		s := alternating{chansem.New(4), time.Now()}
		m, _ := sc.steady(s, defaultSteadyFor(10*time.Millisecond), false, func() {}, func() {})
		assert.Equal(t, steadyMaxWarmup, m.warmup)
	})
}

// alternating is a semaphore whose ops take 100µs and 400µs in turn, for
// 10ms each (in a synctest bubble).
type alternating struct {
	sem.Semaphore
	start time.Time
}

func (s alternating) Acquire(ctx context.Context, n int64) error {
	d := 100 * time.Microsecond
	if time.Since(s.start)/(10*time.Millisecond)%2 == 1 {
		d *= 4
	}
	time.Sleep(d)
	return s.Semaphore.Acquire(ctx, n)
}

// defaultSteadyFor is the rule of make bench, measuring for d.
func defaultSteadyFor(d time.Duration) steadyConfig {
	c := defaultSteady()
	c.measure = d
	return c
}
