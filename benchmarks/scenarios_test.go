package benchmarks

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
)

// requireAllFree takes every permit of s one at a time, then gives them back:
// after a scenario, nothing may be left held.
func requireAllFree(t *testing.T, s sem.Semaphore, size int64) {
	t.Helper()
	for i := range size {
		require.Truef(t, s.TryAcquire(1), "after the scenario, only %d of %d permits were free", i, size)
	}
	s.Release(size)
}

// quick is a steady-state rule short enough for tests.
var quick = steadyConfig{window: time.Millisecond, minWarmup: 2 * time.Millisecond, maxWarmup: 4 * time.Millisecond, measure: 3 * time.Millisecond}

// Every contender completes every scenario it supports, every op is counted
// once, and no permit is left held: the harness is tested as code, not just
// run.
func TestScenariosRun(t *testing.T) {
	const ops = 1000
	for _, sc := range slices.Concat(Scenarios, LongScenarios) {
		for _, c := range Catalog() {
			if c.Skip(sc) != "" {
				continue
			}
			t.Run(sc.Name+"/impl="+c.Name, func(t *testing.T) {
				s := c.New(sc.Size)
				if sc.Goroutines <= 1 {
					ready := 0
					w := sc.driveOne(s, ops, func() { ready++ }, false)
					assert.Equal(t, 1, ready, "ready must be called once")
					assert.Equal(t, int64(ops), w.ops)
				} else {
					started, stopped := 0, 0
					m, _ := sc.steady(s, quick, false, func() { started++ }, func() { stopped++ })
					assert.Equal(t, []int{1, 1}, []int{started, stopped}, "start and stop must be called once")
					assert.Len(t, m.perGoroutine, sc.Goroutines)
					var sum int64
					for _, n := range m.perGoroutine {
						sum += n
					}
					assert.Equal(t, m.ops, sum)
					assert.GreaterOrEqual(t, m.warmup, quick.minWarmup)
					if sc.Kind == Cycle || sc.Kind == Starvation {
						assert.Zero(t, m.fails)
					}
				}
				requireAllFree(t, s, sc.Size)
			})
		}
	}
}

// The latency pass completes too, and records the waits of blocking
// Acquires.
func TestScenariosRunTimed(t *testing.T) {
	for _, sc := range Scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			s := chansem.New(sc.Size)
			var lat Latency
			if sc.Goroutines <= 1 {
				lat = sc.latency([]*worker{sc.driveOne(s, 200, func() {}, true)})
			} else {
				// Long enough for every scenario to complete a few waits; on
				// a loaded machine the goroutines may not even run in that
				// time, so a pass with no wait is measured again, longer.
				long := quick
				for long.measure = 20 * time.Millisecond; ; long.measure *= 2 {
					_, lat = sc.steady(s, long, true, func() {}, func() {})
					if lat.Count() > 0 || sc.Kind != Cycle || long.measure > 2*time.Second {
						break
					}
				}
			}
			if sc.Kind == Cycle {
				assert.Positive(t, lat.Count())
			}
			requireAllFree(t, s, sc.Size)
		})
	}
}

// A scenario's name says what it does: the report tool reads goroutines,
// size, work and weights from it to draw its curves.
func TestScenarioNames(t *testing.T) {
	seen := map[string]bool{}
	kv := regexp.MustCompile(`^[a-z]+=[0-9a-z-]+$`)
	for _, sc := range slices.Concat(Scenarios, LongScenarios) {
		require.False(t, seen[sc.Name], "duplicate scenario %s", sc.Name)
		seen[sc.Name] = true
		keys := map[string]string{}
		for part := range strings.SplitSeq(sc.Name, "/") {
			if k, v, ok := strings.Cut(part, "="); ok {
				assert.Regexp(t, kv, part, sc.Name)
				keys[k] = v
			}
		}
		assert.Equal(t, strconv.FormatInt(sc.Size, 10), keys["size"], sc.Name)
		if g, ok := keys["goroutines"]; ok {
			assert.Equal(t, strconv.Itoa(sc.Goroutines), g, sc.Name)
		} else {
			assert.Equal(t, 1, sc.Goroutines, sc.Name)
		}
		if w, ok := keys["work"]; ok {
			assert.Equal(t, map[int]string{0: "0", WorkShort: "short", WorkLong: "long", WorkYield: "yield"}[sc.Work], w, sc.Name)
		}
		if sc.MaxWeight > 1 && sc.Kind == Cycle {
			assert.Equal(t, fmt.Sprintf("1-%d", sc.MaxWeight), keys["weights"], sc.Name)
		}
		if sc.Kind == Starvation {
			assert.Equal(t, sc.Size, sc.MaxWeight, "%s: the large request is the whole semaphore", sc.Name)
		}
		if sc.Kind == Cancel {
			assert.Positive(t, sc.Timeout, sc.Name)
		}
	}
	for _, name := range []string{ // quoted by other issues: never rename
		"uncontended/size=1", "goroutines=16/size=1/work=0",
		"goroutines=64/size=4/work=short", "goroutines=16/size=8/weights=1-4",
	} {
		assert.True(t, seen[name], name)
	}
}

func TestSkip(t *testing.T) {
	weighted := Scenario{Size: 8, MaxWeight: 4}
	for _, tc := range []struct {
		c    Contender
		sc   Scenario
		want string
	}{
		{Contender{}, weighted, ""},
		{Contender{MaxSize: 1}, Scenario{Size: 1, MaxWeight: 1}, ""},
		{Contender{MaxSize: 1}, weighted, "size 8 exceeds its maximum of 1"},
		{Contender{UnitOnly: true}, weighted, "takes only one permit per request"},
		{Contender{UnitOnly: true}, Scenario{Size: 8, MaxWeight: 1}, ""},
		{Contender{IgnoresContext: true}, Scenario{Size: 1, MaxWeight: 1, Kind: Cancel}, "Acquire ignores its context"},
		{Contender{IgnoresContext: true}, Scenario{Size: 1, MaxWeight: 1}, ""},
	} {
		assert.Equal(t, tc.want, tc.c.Skip(tc.sc), "%+v on %+v", tc.c, tc.sc)
	}
	for _, c := range Catalog() {
		assert.Empty(t, c.Skip(Scenarios[0]), "%s must run the uncontended scenario", c.Name)
	}
}

// counting records the weight of every Acquire.
type counting struct {
	sem.Semaphore
	byWeight [8]atomic.Int64
}

func (c *counting) Acquire(ctx context.Context, n int64) error {
	c.byWeight[n].Add(1)
	return c.Semaphore.Acquire(ctx, n)
}

// In the starvation probe, goroutine 0 asks for the whole semaphore every
// time and everyone else for one permit, and the large request's waits are
// kept apart.
func TestStarvationProbe(t *testing.T) {
	sc := Scenario{Goroutines: 8, Size: 4, MaxWeight: 4, Kind: Starvation}
	s := &counting{Semaphore: chansem.New(4)}
	big, small := &worker{id: 0, wait: NewHistogram()}, &worker{id: 5, wait: NewHistogram()}
	sc.op(s, big)
	assert.Equal(t, int64(1), s.byWeight[4].Load(), "goroutine 0 takes the whole semaphore")
	sc.op(s, small)
	assert.Equal(t, int64(1), s.byWeight[1].Load(), "the others take one permit")
	requireAllFree(t, s, 4)

	big.wait, small.wait = NewHistogram(), NewHistogram() // forget the real waits
	big.wait.Record(5 * time.Millisecond)
	small.wait.Record(time.Microsecond)
	lat := sc.latency([]*worker{big, small})
	assert.Equal(t, int64(1), lat.Big.Count())
	assert.InEpsilon(t, 5*time.Millisecond, lat.Big.Max(), 0.01)
	assert.Equal(t, int64(1), lat.Count())
	assert.InEpsilon(t, time.Microsecond, lat.Max(), 0.01)

	sc.steady(s, quick, false, func() {}, func() {})
	assert.Greater(t, s.byWeight[4].Load(), int64(1))
	assert.Greater(t, s.byWeight[1].Load(), int64(1))
	assert.Zero(t, s.byWeight[2].Load()+s.byWeight[3].Load())
	requireAllFree(t, s, 4)
}

// offBeat is a rule for fake time whose measurement starts at 31.5ms, off
// the whole milliseconds at which the tests' ops complete, and lasts measure.
func offBeat(measure time.Duration) steadyConfig {
	return steadyConfig{window: 10500 * time.Microsecond, minWarmup: 30 * time.Millisecond, maxWarmup: 50 * time.Millisecond, measure: measure}
}

// With every permit held by someone else, every Acquire of a Cancel
// scenario times out, and each timeout is counted.
func TestCancelScenarioCountsTimeouts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sc := Scenario{Goroutines: 4, Size: 1, MaxWeight: 1, Kind: Cancel, Timeout: time.Millisecond}
		s := chansem.New(1)
		require.True(t, s.TryAcquire(1))
		m, lat := sc.steady(s, offBeat(100*time.Millisecond), true, func() {}, func() {})
		// 4 goroutines each try once per ms for 100ms.
		assert.Equal(t, int64(400), m.ops)
		assert.Equal(t, m.ops, m.fails)
		assert.Zero(t, lat.Count(), "a timed-out Acquire is no wait")
		assert.Equal(t, 100*time.Millisecond, m.elapsed)
		s.Release(1)
		requireAllFree(t, s, 1)
	})
}

// tryFails is a semaphore whose TryAcquire always fails.
type tryFails struct{ sem.Semaphore }

func (tryFails) TryAcquire(int64) bool { return false }

// In a Try scenario, one op in TryEvery is a blocking Acquire; the others
// are TryAcquires, whose failures are counted.
func TestTryScenarioCountsFailures(t *testing.T) {
	sc := Scenario{Goroutines: 1, Size: 1, MaxWeight: 1, Kind: Try}
	w := sc.driveOne(tryFails{chansem.New(1)}, 100, func() {}, false)
	assert.Equal(t, int64(100-100/TryEvery), w.fails)

	s := chansem.New(1)
	w = sc.driveOne(s, 100, func() {}, false)
	assert.Zero(t, w.fails)
	requireAllFree(t, s, 1)
}

// slow is a semaphore whose Acquire takes exactly d (in a synctest bubble).
type slow struct {
	sem.Semaphore
	d time.Duration
}

func (s slow) Acquire(ctx context.Context, n int64) error {
	time.Sleep(s.d)
	return s.Semaphore.Acquire(ctx, n)
}

// Timed waits are what the acquirer saw: with fake time, exactly d.
func TestLatencyMeasuresWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sc := Scenario{Goroutines: 4, Size: 4, MaxWeight: 1}
		m, lat := sc.steady(slow{chansem.New(4), 3 * time.Millisecond}, offBeat(300*time.Millisecond), true, func() {}, func() {})
		// 4 goroutines, 3ms per op, 300ms: 400 ops, and a wait recorded
		// for each: an Acquire that straddles the start is neither counted
		// nor recorded, one that straddles the end is both.
		require.Equal(t, int64(400), m.ops)
		require.Equal(t, int64(400), lat.Count())
		assert.InEpsilon(t, 750*time.Microsecond, m.nsPerOp(), 0.01)
		for _, got := range []time.Duration{lat.Percentile(50), lat.Percentile(99), lat.Max()} {
			assert.InEpsilon(t, 3*time.Millisecond, got, 0.01)
		}
	})
}

func TestHistogramPercentiles(t *testing.T) {
	h := NewHistogram()
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Microsecond)
	}
	h.Record(-1) // a clock step back must not be lost
	assert.Equal(t, int64(1001), h.Count())
	assert.InEpsilon(t, 500*time.Microsecond, h.Percentile(50), 0.01)
	assert.InEpsilon(t, 990*time.Microsecond, h.Percentile(99), 0.01)
	assert.InEpsilon(t, 1000*time.Microsecond, h.Max(), 0.01)

	o := NewHistogram()
	o.Record(time.Hour) // beyond the range: kept as its maximum
	h.Merge(o)
	assert.Equal(t, int64(1002), h.Count())
	assert.InEpsilon(t, time.Minute, h.Max(), 0.01)
}

func TestJain(t *testing.T) {
	for _, tc := range []struct {
		xs   []int64
		want float64
	}{
		{[]int64{5, 5, 5, 5}, 1},
		{[]int64{8, 0, 0, 0}, 0.25},
		{[]int64{1, 2, 3, 4}, 100.0 / 120},
		{[]int64{3, 1}, 16.0 / 20},
		{[]int64{0, 0}, 0},
		{nil, 0},
	} {
		assert.InDelta(t, tc.want, Jain(tc.xs), 1e-12, "%v", tc.xs)
	}
}
