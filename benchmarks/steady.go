package benchmarks

import (
	"flag"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The steady-state rule.
//
// A contended scenario changes regime while it runs: at first the
// goroutines barge past each other, then, after a preemption or two, a FIFO
// strategy settles into a convoy in which every Acquire parks and is handed
// off, and stays there. A run that stops after a few milliseconds measures
// the first regime, a longer one the second or a mix, so runs of different
// lengths disagreed by regime, not by noise. So a contended scenario is
// measured on live goroutines in two phases, the same in every make target:
//
//  1. Warm-up, untimed, in windows of steadyWindow (the scheduler's
//     preemption quantum): at least steadyMinWarmup, then until the time per
//     op of the last steadyWindows windows agrees within a factor of
//     steadySpread, and at most steadyMaxWarmup.
//  2. Measurement, for the go test -benchtime, continuing from the warm-up
//     without stopping a goroutine: time per op is the time elapsed over the
//     ops completed in between, and waits are recorded only in this phase.
//
// Only the -benchtime differs between make bench, bench-long and
// bench-reference, so they measure the same regime (BenchmarkSemaphore's
// warm-up is printed in its warmup-ms metric).
//
// The goroutines start queued: the run holds every free permit while they
// start and run into their first op, and gives the permits back once they
// have. Started unqueued, a strategy whose fast path needs no parking could
// stay in the first regime for good where there are more permits than
// processors (size 4 on two cores): as long as nobody is queued, the
// running goroutines take and give back permits without ever running out,
// and nobody queues. A run then measured that regime or the convoy as
// luck fell, and a strict FIFO strategy's runs of the same scenario
// disagreed by several times. A strategy that lets running goroutines
// barge leaves the convoy again within the warm-up.
const (
	steadyWindow    = 10 * time.Millisecond
	steadyMinWarmup = 60 * time.Millisecond
	steadyMaxWarmup = 300 * time.Millisecond
	steadyWindows   = 3
	steadySpread    = 1.5

	// countBenchtimeMeasure is the measurement phase when -benchtime is a
	// count of iterations, which a steady-state run cannot honour.
	countBenchtimeMeasure = 10 * time.Millisecond
)

// measureTries is how many times a contended scenario is measured before a
// measurement in which no op completed fails the benchmark. Under a
// -benchtime count the measurement lasts countBenchtimeMeasure, and a
// loaded machine can leave the whole process without a processor that
// long: the release check's smoke run of a consumer's channel semaphore
// once counted no op in it.
const measureTries = 3

// untilOps calls measure until a measurement completes an op, at most
// measureTries times, and returns the last measurement.
func untilOps(measure func() measured) measured {
	m := measure()
	for try := 1; m.ops == 0 && try < measureTries; try++ {
		m = measure()
	}
	return m
}

// steadyConfig is the rule's durations; tests shorten them.
type steadyConfig struct {
	window, minWarmup, maxWarmup, measure time.Duration
}

// defaultSteady is the rule above, measuring for the -benchtime when it is
// a duration, else for countBenchtimeMeasure.
func defaultSteady() steadyConfig {
	measure := countBenchtimeMeasure
	if f := flag.Lookup("test.benchtime"); f != nil {
		if d, err := time.ParseDuration(f.Value.String()); err == nil {
			measure = d
		}
	}
	return steadyConfig{steadyWindow, steadyMinWarmup, steadyMaxWarmup, measure}
}

// steady reports whether a warm-up that has lasted warmed, with the time per
// op of each window so far, has reached the steady state (or must stop).
func (c steadyConfig) steady(warmed time.Duration, windows []float64) bool {
	if warmed >= c.maxWarmup {
		return true
	}
	if warmed < c.minWarmup || len(windows) < steadyWindows {
		return false
	}
	last := windows[len(windows)-steadyWindows:]
	lo, hi := last[0], last[0]
	for _, x := range last {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo > 0 && hi <= steadySpread*lo
}

// Phases of a steady-state run, in order.
const (
	warming int32 = iota
	measuring
	finished
)

// measured is what the goroutines did in the measurement phase.
type measured struct {
	elapsed      time.Duration
	warmup       time.Duration
	windows      []float64 // ns per op of each warm-up window
	perGoroutine []int64   // ops each goroutine completed
	ops, fails   int64
}

func (m measured) nsPerOp() float64 {
	if m.ops == 0 {
		return 0
	}
	return float64(m.elapsed.Nanoseconds()) / float64(m.ops)
}

// publishedOps is the sum of the ops the workers published in the warm-up.
func publishedOps(ws []*worker) int64 {
	var n int64
	for _, w := range ws {
		n += w.published.Load()
	}
	return n
}

// measureSteady runs one goroutine per worker doing body until the end of
// the measurement, warming up first by the rule of cfg. queue is called
// once every goroutine has started, and gives back the permits held so
// that they start queued (see the rule). start and stop are called around
// the measurement phase; phase says which phase runs.
//
// A worker looks at the phase after each op. In the warm-up it publishes
// its op count after every op (untimed, so free), for the windows. It
// counts the ops it completes between seeing the measurement start and
// seeing it finish: an op that straddles the start is not counted, one
// that straddles the end is, so on average the count is exact, with no
// shared counter and no clock read in the measured ops.
func measureSteady(ws []*worker, cfg steadyConfig, body func(*worker), phase *atomic.Int32, queue, start, stop func()) measured {
	phase.Store(warming)
	var started, wg sync.WaitGroup
	for _, w := range ws {
		started.Add(1)
		wg.Go(func() {
			started.Done()
			w.loop(body, phase)
		})
	}
	started.Wait()
	// Let each goroutine run into its first op, which blocks.
	for range ws {
		runtime.Gosched()
	}
	queue()
	var m measured
	begin, prevAt, prevOps := time.Now(), time.Now(), int64(0)
	for {
		time.Sleep(cfg.window)
		at, ops := time.Now(), publishedOps(ws)
		perOp := 0.0 // no op completed: not steady
		if ops > prevOps {
			perOp = float64(at.Sub(prevAt).Nanoseconds()) / float64(ops-prevOps)
		}
		m.windows = append(m.windows, perOp)
		prevAt, prevOps = at, ops
		if cfg.steady(at.Sub(begin), m.windows) {
			m.warmup = at.Sub(begin)
			break
		}
	}
	start()
	t0 := time.Now()
	phase.Store(measuring)
	time.Sleep(cfg.measure)
	phase.Store(finished)
	m.elapsed = time.Since(t0)
	stop()
	wg.Wait()
	m.perGoroutine = make([]int64, len(ws))
	for i, w := range ws {
		m.perGoroutine[i] = w.ops - w.startOps
		m.ops += m.perGoroutine[i]
		m.fails += w.fails - w.startFails
	}
	return m
}

// loop does body until the run is finished, noting where the measurement
// started for it.
func (w *worker) loop(body func(*worker), phase *atomic.Int32) {
	started := false
	for {
		body(w)
		switch phase.Load() {
		case warming:
			w.published.Store(w.ops)
		case measuring:
			if !started {
				started, w.startOps, w.startFails = true, w.ops, w.fails
			}
		case finished:
			if !started { // parked through the whole measurement
				w.startOps, w.startFails = w.ops, w.fails
			}
			return
		}
	}
}
