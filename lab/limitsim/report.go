package limitsim

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/semacat/sem/adaptive"
)

// Contender is an algorithm under test, or a fixed size.
type Contender struct {
	Name string
	New  func() adaptive.Algorithm
	// Initial is the starting limit: a fixed size's value, or the
	// algorithm's first guess.
	Initial int64
}

// FirstGuess is the limit every algorithm starts from.
const FirstGuess = 10

// Algorithms are the package's three, with their defaults.
var Algorithms = []Contender{
	{"AIMD", func() adaptive.Algorithm { return &adaptive.AIMD{} }, FirstGuess},
	{"Vegas", func() adaptive.Algorithm { return &adaptive.Vegas{} }, FirstGuess},
	{"Gradient", func() adaptive.Algorithm { return &adaptive.Gradient{} }, FirstGuess},
}

// FixedSizes are swept to find the best fixed size in hindsight; BadSize
// is a size chosen badly, four times the usual capacity.
var (
	FixedSizes = []int64{10, 15, 20, 25, 30, 35, 40, 45, 50, 60, 70, 80}
	BadSize    = int64(160)
)

// Fixed returns a contender that keeps size.
func Fixed(size int64) Contender {
	return Contender{fmt.Sprintf("fixed %d", size), func() adaptive.Algorithm { return fixed{} }, size}
}

type fixed struct{}

func (fixed) Next(w adaptive.Window) float64 { return w.Limit }

// Measure is what the table reports of one run.
type Measure struct {
	Goodput float64 // successes per second
	Failed  float64 // the fraction of requests refused or abandoned
	// P99 is the 99th percentile latency of the successes that started
	// once the limit had settled in their phase (all of them for a fixed
	// size), over Unloaded, the 99th percentile of the work alone. The
	// limit has settled in a phase once it has come within Band of the
	// capacity; in a phase where the clients do not outnumber the
	// capacity, at once.
	P99, Unloaded time.Duration
	// Settle is the time from the capacity's halving until the limit
	// stays within Band of the new capacity to the end of that phase; -1
	// if it never does, 0 in a scenario where the capacity does not halve.
	Settle time.Duration
	// Swing is the largest distance of the limit from the capacity once
	// it has settled, as a fraction of the capacity, over the phases where
	// the clients outnumber the capacity.
	Swing float64
}

// Evaluate measures res, a run of sc.
func Evaluate(sc Scenario, res Result, adapts bool) Measure {
	var total time.Duration
	for _, ph := range sc.Phases {
		total += ph.Length
	}
	requests := len(res.Successes) + res.Failures
	m := Measure{Goodput: float64(len(res.Successes)) / total.Seconds(),
		Failed: float64(res.Failures) / float64(max(requests, 1)), Unloaded: Work}
	if sc.Slow > 0.01 {
		m.Unloaded = SlowFactor * Work
	}
	settledAt := make([]time.Duration, len(sc.Phases)) // by phase; -1 if never
	var begin time.Duration
	for i, ph := range sc.Phases {
		settledAt[i] = begin
		capacity := float64(ph.Capacity)
		if adapts && ph.Clients > ph.Capacity {
			phase := phaseSeries(res.Series, i)
			settledAt[i] = enters(phase, capacity)
			if settledAt[i] >= 0 {
				m.Swing = max(m.Swing, swing(phase, capacity, settledAt[i]))
			}
			if i > 0 && 2*ph.Capacity == sc.Phases[i-1].Capacity {
				m.Settle = stays(phase, capacity)
				if m.Settle >= 0 {
					m.Settle -= begin
				}
			}
		}
		begin += ph.Length
	}
	var lat []time.Duration
	for _, s := range res.Successes {
		if i := phaseAt(sc, s.Start); settledAt[i] >= 0 && s.Start >= settledAt[i] {
			lat = append(lat, s.Latency)
		}
	}
	m.P99 = percentile(lat, 0.99)
	return m
}

// phaseSeries is the part of series recorded in phase i, each point's
// limit the median of the limits of the medianTicks points around it, so
// that the probes of the no-load latency, which halve the limit for two
// windows, do not count as the limit's swing.
func phaseSeries(series []Point, i int) []Point {
	var out []Point
	for j, p := range series {
		if p.phaseIndex != i {
			continue
		}
		var around []time.Duration // limits, as durations to reuse percentile
		for _, q := range series[max(0, j-medianTicks/2):min(len(series), j+medianTicks/2+1)] {
			around = append(around, time.Duration(q.Limit))
		}
		p.Limit = int64(percentile(around, 0.5))
		out = append(out, p)
	}
	return out
}

// medianTicks is how many ticks the limit's median spans: a quarter of a second.
const medianTicks = 5

// off is how far the limit at p is from capacity, as a fraction of it.
func off(p Point, capacity float64) float64 {
	return math.Abs(float64(p.Limit)-capacity) / capacity
}

// enters returns when the limit first came within Band of capacity in
// phase; -1 if it never did.
func enters(phase []Point, capacity float64) time.Duration {
	for _, p := range phase {
		if off(p, capacity) <= Band {
			return p.T
		}
	}
	return -1
}

// stays returns when the limit came within Band of capacity for the rest
// of phase; -1 if it was outside at the phase's end.
func stays(phase []Point, capacity float64) time.Duration {
	at := time.Duration(-1)
	for _, p := range phase {
		switch {
		case off(p, capacity) > Band:
			at = -1
		case at < 0:
			at = p.T
		}
	}
	return at
}

// swing is the largest distance of the limit from capacity in phase from
// since on.
func swing(phase []Point, capacity float64, since time.Duration) float64 {
	var most float64
	for _, p := range phase {
		if p.T >= since {
			most = max(most, off(p, capacity))
		}
	}
	return most
}

func phaseAt(sc Scenario, t time.Duration) int {
	var end time.Duration
	for i, ph := range sc.Phases {
		end += ph.Length
		if t < end {
			return i
		}
	}
	return len(sc.Phases) - 1
}

// Row is one contender in one scenario.
type Row struct {
	Scenario, Contender string
	Measure
	Result   Result
	VsBest   float64 // goodput over the best fixed size's
	BestSize int64
}

// Compare runs every algorithm, the fixed sizes and the bad size in every
// scenario. It must be called inside a synctest bubble.
func Compare() []Row {
	var rows []Row
	for _, sc := range Scenarios {
		best := bestFixed(sc)
		for _, c := range append(append([]Contender{}, Algorithms...), Fixed(BadSize)) {
			rows = append(rows, against(sc, c, best))
		}
		rows = append(rows, best)
	}
	return rows
}

// bestFixed runs every fixed size in sc and returns the row of the one
// with the most goodput, the lower p99 between sizes within a thousandth.
func bestFixed(sc Scenario) Row {
	var best Row
	for _, size := range FixedSizes {
		res := Run(sc, fixed{}, size)
		m := Evaluate(sc, res, false)
		if best.Result.Series == nil || m.Goodput > best.Goodput*1.001 ||
			(m.Goodput >= best.Goodput*0.999 && m.P99 < best.P99) {
			best = Row{Scenario: sc.Name, Measure: m, Result: res, BestSize: size}
		}
	}
	best.Contender = bestName(best.BestSize)
	best.VsBest = 1
	return best
}

func bestName(size int64) string { return fmt.Sprintf("best fixed (%d)", size) }

// against runs c in sc and measures it against best, the best fixed size.
func against(sc Scenario, c Contender, best Row) Row {
	res := Run(sc, c.New(), c.Initial)
	_, isFixed := c.New().(fixed)
	m := Evaluate(sc, res, !isFixed)
	return Row{Scenario: sc.Name, Contender: c.Name, Measure: m, Result: res,
		VsBest: m.Goodput / best.Goodput, BestSize: best.BestSize}
}

// Table renders rows as the Markdown table of docs/adaptive/results.md.
func Table(rows []Row) string {
	var b strings.Builder
	b.WriteString("| scenario | contender | goodput vs best fixed | failed | p99 vs unloaded | settle after halving | swing |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range rows {
		settle, swing := "—", "—"
		if slices.ContainsFunc(Algorithms, func(c Contender) bool { return c.Name == r.Contender }) {
			swing = fmt.Sprintf("±%.0f%%", 100*r.Swing)
			if r.Settle != 0 {
				settle = settleText(r.Settle)
			}
		}
		p99 := "—" // no success to measure
		if r.P99 > 0 {
			p99 = fmt.Sprintf("%.2f×", float64(r.P99)/float64(r.Unloaded))
		}
		fmt.Fprintf(&b, "| %s | %s | %.0f%% (%.0f/s) | %.1f%% | %s | %s | %s |\n", r.Scenario, r.Contender,
			100*r.VsBest, r.Goodput, 100*r.Failed, p99, settle, swing)
	}
	return b.String()
}

// settleText renders a settle time that is not 0: never if negative.
func settleText(d time.Duration) string {
	if d < 0 {
		return "never"
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}
