package benchmarks

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/semacat/sem"
)

// Kind is what each goroutine of a scenario does in one op.
type Kind int

const (
	// Cycle: Acquire 1..MaxWeight permits, work, Release.
	Cycle Kind = iota
	// Starvation probe: goroutine 0 cycles Acquire(Size), the whole
	// semaphore, while every other goroutine cycles Acquire(1). The large
	// request's worst wait shows whether a strategy lets it starve.
	Starvation
	// Cancel: Acquire(1) with a context that times out after Timeout; a
	// timed-out attempt counts as an op (and as a fail).
	Cancel
	// Try: TryAcquire(1), and one blocking Acquire(1) in every TryEvery ops
	// so that waiters are queued while others try; a failed TryAcquire counts
	// as an op (and as a fail).
	Try
)

// TryEvery is how often a goroutine of a Try scenario acquires blocking.
const TryEvery = 4

// Work done while holding permits, in steps of a busy loop (see spin).
const (
	WorkShort = 50
	WorkLong  = 2000
	// WorkYield holds the permits across runtime.Gosched instead of
	// spinning, so that on few cores the other goroutines run, find no
	// permit and queue: the number of waiters really grows with the number
	// of goroutines, which is what exposes a cost per waiter such as
	// condsem's Broadcast.
	WorkYield = -1
)

// hold does the scenario's work while permits are held.
func hold(work int) {
	if work == WorkYield {
		runtime.Gosched()
		return
	}
	spin(work)
}

// sink keeps spin's loop from being optimized away.
var sink atomic.Int64

// spin runs n steps of a loop that the compiler cannot remove, without
// blocking or yielding the processor.
func spin(n int) {
	x := 0
	for i := range n {
		x += i * i
	}
	if x == -1 {
		sink.Store(int64(x))
	}
}

// Scenario is one way of loading a semaphore: how many goroutines do what,
// on a semaphore of what size, with which weights and hold time.
//
// Its Name is in benchstat's key=value form, and the keys agree with the
// fields (goroutines=Goroutines, size=Size, work=short|long|0 for Work,
// weights=1-MaxWeight); the report tool relies on this to draw its curves.
type Scenario struct {
	// Name is the benchmark name's scenario part, in benchstat's key=value form.
	Name string
	// Goroutines cycling at once; 1 means the benchmark goroutine alone.
	Goroutines int
	// Size of the semaphore.
	Size int64
	// MaxWeight: each request takes 1..MaxWeight permits, uniformly. For a
	// Starvation scenario it is the large request, Size.
	MaxWeight int64
	// Work is the number of spin units done while holding the permits.
	Work int
	// Kind of op the goroutines perform; Cycle when zero.
	Kind Kind
	// Timeout of each Acquire in a Cancel scenario.
	Timeout time.Duration
}

// Scenarios are the default scenarios, run by `make bench`. The four first
// names are quoted elsewhere and must not change.
var Scenarios = slices.Concat(
	[]Scenario{
		{Name: "uncontended/size=1", Goroutines: 1, Size: 1, MaxWeight: 1},
		{Name: "goroutines=16/size=1/work=0", Goroutines: 16, Size: 1, MaxWeight: 1},
		{Name: "goroutines=64/size=4/work=short", Goroutines: 64, Size: 4, MaxWeight: 1, Work: WorkShort},
		{Name: "goroutines=16/size=8/weights=1-4", Goroutines: 16, Size: 8, MaxWeight: 4},
	},
	// Size 1: the mutex's home ground, cost against contention.
	sweep(1, 0, 2, 4, 8, 32, 64),
	// Oversubscribed: waiters pile up behind 4 permits; the curve shows
	// how each strategy's cost grows with the number of waiters.
	sweep(4, WorkShort, 2, 4, 8, 16, 32, 128, 256, 512),
	// Waiters queued for real: the holder yields, so on 2 cores the queue
	// grows with the goroutines and per-waiter costs show.
	sweep(4, WorkYield, 2, 8, 32, 128, 512),
	[]Scenario{
		// Hold times: with goroutines=16/size=1/work=0 above, cost as the
		// critical section grows.
		{Name: "goroutines=16/size=1/work=short", Goroutines: 16, Size: 1, MaxWeight: 1, Work: WorkShort},
		{Name: "goroutines=16/size=1/work=long", Goroutines: 16, Size: 1, MaxWeight: 1, Work: WorkLong},
		{Name: "starvation/goroutines=16/size=4", Goroutines: 16, Size: 4, MaxWeight: 4, Work: WorkShort, Kind: Starvation},
		{Name: "cancel/goroutines=16/size=1/timeout=10us", Goroutines: 16, Size: 1, MaxWeight: 1, Work: WorkLong,
			Kind: Cancel, Timeout: 10 * time.Microsecond},
		{Name: "tryacquire/goroutines=16/size=1/work=short", Goroutines: 16, Size: 1, MaxWeight: 1, Work: WorkShort, Kind: Try},
	},
)

// LongScenarios are added to Scenarios by `make bench-long` (the test flag
// -long): more goroutine counts and heavier versions of the probes.
var LongScenarios = slices.Concat(
	sweep(1, 0, 128, 256),
	sweep(4, WorkShort, 3, 6, 12, 24, 48, 96, 192, 384, 1024),
	[]Scenario{
		{Name: "goroutines=64/size=8/weights=1-4", Goroutines: 64, Size: 8, MaxWeight: 4},
		{Name: "goroutines=64/size=4/work=long", Goroutines: 64, Size: 4, MaxWeight: 1, Work: WorkLong},
		{Name: "starvation/goroutines=64/size=4", Goroutines: 64, Size: 4, MaxWeight: 4, Work: WorkShort, Kind: Starvation},
		{Name: "cancel/goroutines=64/size=4/timeout=10us", Goroutines: 64, Size: 4, MaxWeight: 1, Work: WorkLong,
			Kind: Cancel, Timeout: 10 * time.Microsecond},
		{Name: "tryacquire/goroutines=64/size=4/work=short", Goroutines: 64, Size: 4, MaxWeight: 1, Work: WorkShort, Kind: Try},
	},
)

// sweep is the unit-weight scenarios goroutines=g/size=size/work=w for each g.
func sweep(size int64, work int, goroutines ...int) []Scenario {
	w := map[int]string{0: "0", WorkShort: "short", WorkLong: "long", WorkYield: "yield"}[work]
	var out []Scenario
	for _, g := range goroutines {
		out = append(out, Scenario{
			Name:       fmt.Sprintf("goroutines=%d/size=%d/work=%s", g, size, w),
			Goroutines: g, Size: size, MaxWeight: 1, Work: work,
		})
	}
	return out
}

// Run measures s under the scenario; one op is one Acquire+Release pair (one
// attempt, in Cancel and Try scenarios, where it also reports fails/op). A
// contended scenario is measured in its steady state (see steady.go) and
// also reports how long it warmed up (warmup-ms).
//
// Nothing here reads the clock per op: wait latencies are measured by
// RunLatency in a separate pass, because two time.Now calls per op would
// double the cost of the fastest contenders and distort the ratios.
func (sc Scenario) Run(b *testing.B, s sem.Semaphore) {
	b.ReportAllocs()
	if sc.Goroutines <= 1 {
		w := sc.driveOne(s, b.N, b.ResetTimer, false)
		b.StopTimer()
		if sc.Kind == Try {
			b.ReportMetric(float64(w.fails)/float64(b.N), "fails/op")
		}
		return
	}
	var before, after runtime.MemStats
	m := untilOps(func() measured {
		m, _ := sc.steady(s, defaultSteady(), false,
			func() { runtime.ReadMemStats(&before) }, func() { runtime.ReadMemStats(&after) })
		return m
	})
	if m.ops == 0 {
		b.Fatalf("%s: no op completed in %d measurements, the last of %v", sc.Name, measureTries, m.elapsed)
	}
	ops := float64(m.ops)
	b.ReportMetric(m.nsPerOp(), "ns/op")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/ops, "B/op")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/ops, "allocs/op")
	b.ReportMetric(float64(m.warmup.Milliseconds()), "warmup-ms")
	if sc.Kind == Cancel || sc.Kind == Try {
		b.ReportMetric(float64(m.fails)/ops, "fails/op")
	}
}

// RunLatency runs the scenario again, this time timing every blocking
// Acquire from the acquirer's side, and reports wait percentiles in ns
// (p50-ns, p99-ns, max-ns), Jain's fairness index over the acquisitions of
// each goroutine (jain), and for a Starvation scenario the large request's
// worst wait (big-max-ns). Its own time per op includes the clock reads and
// is suppressed: take ns/op from Run.
func (sc Scenario) RunLatency(b *testing.B, s sem.Semaphore) {
	var lat Latency
	if sc.Goroutines <= 1 {
		w := sc.driveOne(s, b.N, b.ResetTimer, true)
		b.StopTimer()
		lat = sc.latency([]*worker{w})
	} else {
		var m measured
		m, lat = sc.steady(s, defaultSteady(), true, func() {}, func() {})
		b.ReportMetric(Jain(m.perGoroutine), "jain")
	}
	b.ReportMetric(0, "ns/op") // 0 suppresses the distorted figure
	if lat.Count() > 0 {
		b.ReportMetric(float64(lat.Percentile(50)), "p50-ns")
		b.ReportMetric(float64(lat.Percentile(99)), "p99-ns")
		b.ReportMetric(float64(lat.Max()), "max-ns")
	}
	if sc.Kind == Starvation && lat.Big.Count() > 0 {
		b.ReportMetric(float64(lat.Big.Max()), "big-max-ns")
	}
}

// newWorkers makes the scenario's goroutines' state.
func (sc Scenario) newWorkers(timed bool) []*worker {
	ws := make([]*worker, max(sc.Goroutines, 1))
	for i := range ws {
		ws[i] = &worker{id: i, r: rand.New(rand.NewPCG(uint64(i), 2))}
		if timed {
			ws[i].wait = NewHistogram()
		}
	}
	return ws
}

// body is one op of the scenario: the lean one when the untimed pass can
// take it.
func (sc Scenario) body(s sem.Semaphore, timed bool) func(*worker) {
	if sc.lean() && !timed {
		return func(w *worker) { leanCycle(s, w, sc.Work) }
	}
	return func(w *worker) { sc.op(s, w) }
}

// steady measures the scenario's goroutines on s by the steady-state rule
// of cfg, calling start and stop around the measurement; timed records
// every wait of the measurement phase.
func (sc Scenario) steady(s sem.Semaphore, cfg steadyConfig, timed bool, start, stop func()) (measured, Latency) {
	ws := sc.newWorkers(timed)
	var phase atomic.Int32
	for _, w := range ws {
		w.phase = &phase
	}
	m := measureSteady(ws, cfg, sc.body(s, timed), &phase, holdFree(s, sc.Size), start, stop)
	if !timed {
		return m, Latency{}
	}
	return m, sc.latency(ws)
}

// holdFree takes every permit of s, of the given size, that it can take at
// once, one at a time, and returns the function that gives them back: the
// goroutines of a steady-state run start queued behind them (see
// steady.go).
func holdFree(s sem.Semaphore, size int64) (release func()) {
	var held int64
	for held < size && s.TryAcquire(1) {
		held++
	}
	return func() {
		for range held {
			s.Release(1)
		}
	}
}

// driveOne performs ops ops on s as a single goroutine, calling ready just
// before the first.
func (sc Scenario) driveOne(s sem.Semaphore, ops int, ready func(), timed bool) *worker {
	w := sc.newWorkers(timed)[0]
	ready()
	if sc.lean() && !timed && sc.Work == 0 {
		leanLoop(s, w, ops)
		return w
	}
	body := sc.body(s, timed)
	for range ops {
		body(w)
	}
	return w
}

// worker is one goroutine's state. Each is allocated apart and padded so
// that goroutines never write to a shared cache line.
type worker struct {
	id    int
	r     *rand.Rand
	ops   int64
	fails int64
	wait  *Histogram // nil unless the run is timed
	// phase, in a steady-state run, is the run's phase: waits are
	// recorded only while measuring.
	phase *atomic.Int32
	// published is ops, published during the warm-up for its windows.
	published atomic.Int64
	// startOps and startFails are ops and fails when this goroutine saw
	// the measurement start.
	startOps, startFails int64
	_                    [64]byte
}

// acquire is s.Acquire(ctx, n), timed if the run is: the untimed path is a
// direct call, so that Run measures the semaphore and nothing else.
func (w *worker) acquire(ctx context.Context, s sem.Semaphore, n int64) error {
	if w.wait == nil || (w.phase != nil && w.phase.Load() != measuring) {
		return s.Acquire(ctx, n)
	}
	t0 := time.Now()
	err := s.Acquire(ctx, n)
	if err == nil {
		w.wait.Record(time.Since(t0))
	}
	return err
}

// lean reports whether the scenario's op is a plain Acquire(1), hold,
// Release(1), which the untimed pass runs through leanCycle and leanLoop.
func (sc Scenario) lean() bool { return sc.Kind == Cycle && sc.MaxWeight <= 1 }

// leanLoop is the uncontended scenario's loop: nothing but the semaphore's two
// calls. The general op (a switch on the kind, the scenario copied into each
// call, the hold and timing hooks) costs more per op than a sync.Mutex
// Lock+Unlock, and squeezed every uncontended ratio toward 1: compare the
// mutex contender of BenchmarkSemaphore/uncontended through both loops.
func leanLoop(s sem.Semaphore, w *worker, ops int) {
	ctx := context.Background()
	for range ops {
		if err := s.Acquire(ctx, 1); err != nil {
			panic(fmt.Sprintf("Acquire(1): %v", err))
		}
		s.Release(1)
	}
	w.ops += int64(ops)
}

// leanCycle is one plain op of a contended scenario, with no more than the
// semaphore's calls, the hold and the op count.
func leanCycle(s sem.Semaphore, w *worker, work int) {
	w.ops++
	if err := s.Acquire(context.Background(), 1); err != nil {
		panic(fmt.Sprintf("Acquire(1): %v", err))
	}
	if work != 0 {
		hold(work)
	}
	s.Release(1)
}

// op performs one op of the scenario as goroutine w.
func (sc Scenario) op(s sem.Semaphore, w *worker) {
	w.ops++
	switch sc.Kind {
	case Cycle:
		n := int64(1)
		if sc.MaxWeight > 1 {
			n = 1 + w.r.Int64N(sc.MaxWeight)
		}
		sc.cycle(s, w, n)
	case Starvation:
		n := int64(1)
		if w.id == 0 {
			n = sc.Size
		}
		sc.cycle(s, w, n)
	case Cancel:
		ctx, cancel := context.WithTimeout(context.Background(), sc.Timeout)
		err := w.acquire(ctx, s, 1)
		cancel()
		if err != nil {
			w.fails++
			return
		}
		hold(sc.Work)
		s.Release(1)
	case Try:
		if w.ops%TryEvery == 0 {
			sc.cycle(s, w, 1)
			return
		}
		if !s.TryAcquire(1) {
			w.fails++
			return
		}
		hold(sc.Work)
		s.Release(1)
	}
}

// cycle acquires n permits, works, and releases them.
func (sc Scenario) cycle(s sem.Semaphore, w *worker, n int64) {
	if err := w.acquire(context.Background(), s, n); err != nil {
		panic(fmt.Sprintf("Acquire(%d): %v", n, err))
	}
	hold(sc.Work)
	s.Release(n)
}
