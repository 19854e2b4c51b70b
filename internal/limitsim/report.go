package limitsim

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/semacat/sem/adaptive"
)

// Band is how close to the capacity a limit must stay: ±20%.
const Band = 0.2

// Contender is an algorithm under test, or a fixed size.
type Contender struct {
	Name string
	New  func() adaptive.Algorithm
	// Initial is the starting limit: a fixed size's value, or the
	// algorithm's first guess.
	Initial int64
}

// Algorithms are the package's three, each starting from a limit of 10.
var Algorithms = []Contender{
	{"AIMD", func() adaptive.Algorithm { return &adaptive.AIMD{} }, 10},
	{"Vegas", func() adaptive.Algorithm { return &adaptive.Vegas{} }, 10},
	{"Gradient", func() adaptive.Algorithm { return &adaptive.Gradient{} }, 10},
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
	Throughput float64 // successes per second
	// P99 is the 99th percentile latency of the successes that started
	// once the limit had settled in their phase (all of them for a fixed
	// size), over Unloaded, the 99th percentile of the work alone.
	P99, Unloaded time.Duration
	// Settle is the longest time a loaded phase took for the limit to come
	// within Band of the capacity; -1 if some phase never did. Swing is the
	// largest distance of the limit from the capacity after that, as a
	// fraction of it. Both are computed over phases where the clients
	// outnumber the capacity.
	Settle time.Duration
	Swing  float64
}

// Evaluate measures res, a run of sc.
func Evaluate(sc Scenario, res Result, adapts bool) Measure {
	var total time.Duration
	for _, ph := range sc.Phases {
		total += ph.Length
	}
	m := Measure{Throughput: float64(len(res.Successes)) / total.Seconds(), Unloaded: Work}
	if sc.Slow > 0.01 {
		m.Unloaded = SlowFactor * Work
	}
	settledAt := make([]time.Duration, len(sc.Phases)) // by phase; start of phase for unloaded ones
	var begin time.Duration
	for i, ph := range sc.Phases {
		settledAt[i] = begin
		if adapts && ph.Clients > ph.Capacity {
			at, swing := settle(res.Series, i, float64(ph.Capacity))
			settledAt[i] = at
			if at < 0 {
				m.Settle = -1
			} else if m.Settle >= 0 {
				m.Settle = max(m.Settle, at-begin)
				m.Swing = max(m.Swing, swing)
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

// settle returns when the limit first came within Band of capacity in
// phase i, and its largest distance from capacity from then on; -1 if it
// never did.
func settle(series []Point, i int, capacity float64) (time.Duration, float64) {
	at, swing := time.Duration(-1), 0.0
	for _, p := range series {
		if p.phaseIndex != i {
			continue
		}
		dist := math.Abs(float64(p.Limit)-capacity) / capacity
		if at < 0 && dist <= Band {
			at = p.T
		}
		if at >= 0 {
			swing = max(swing, dist)
		}
	}
	return at, swing
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
	VsBest   float64 // throughput over the best fixed size's
	BestSize int64
}

// Compare runs every algorithm, the fixed sizes and the bad size in every
// scenario. It must be called inside a synctest bubble.
func Compare() []Row {
	var rows []Row
	for _, sc := range Scenarios {
		var best Row
		for _, size := range FixedSizes {
			res := Run(sc, fixed{}, size)
			m := Evaluate(sc, res, false)
			if best.Contender == "" || m.Throughput > best.Throughput*1.001 ||
				(m.Throughput >= best.Throughput*0.999 && m.P99 < best.P99) {
				best = Row{Scenario: sc.Name, Contender: Fixed(size).Name, Measure: m, Result: res, BestSize: size}
			}
		}
		cs := append(append([]Contender{}, Algorithms...), Fixed(BadSize))
		for _, c := range cs {
			res := Run(sc, c.New(), c.Initial)
			_, isFixed := c.New().(fixed)
			rows = append(rows, Row{Scenario: sc.Name, Contender: c.Name, Measure: Evaluate(sc, res, !isFixed), Result: res})
		}
		best.Contender = "best fixed (" + fmt.Sprint(best.BestSize) + ")"
		rows = append(rows, best)
		for i := range rows {
			if rows[i].Scenario == sc.Name {
				rows[i].VsBest = rows[i].Throughput / best.Throughput
				rows[i].BestSize = best.BestSize
			}
		}
	}
	return rows
}

// Table renders rows as the Markdown table of docs/adaptive/results.md.
func Table(rows []Row) string {
	var b strings.Builder
	b.WriteString("| scenario | contender | throughput vs best fixed | p99 vs unloaded | settle | swing |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: |\n")
	for _, r := range rows {
		settle, swing := "—", "—"
		if strings.HasPrefix(r.Contender, "fixed") || strings.HasPrefix(r.Contender, "best") {
		} else if r.Settle < 0 {
			settle = "never"
		} else {
			settle = fmt.Sprintf("%.2f s", r.Settle.Seconds())
			swing = fmt.Sprintf("±%.0f%%", 100*r.Swing)
		}
		fmt.Fprintf(&b, "| %s | %s | %.0f%% (%.0f/s) | %.2f× | %s | %s |\n", r.Scenario, r.Contender,
			100*r.VsBest, r.Throughput, float64(r.P99)/float64(r.Unloaded), settle, swing)
	}
	return b.String()
}
