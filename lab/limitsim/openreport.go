package limitsim

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/semacat/sem/adaptive"
)

// OpenInitial is the limit every contender of the open-loop scenarios
// starts from, failsafe-go's default.
const OpenInitial = 20

// OpenScenarios are the open-loop scenarios the docs report: sustained
// overload, a latency step that load did not cause, capacities of 2 and 8,
// where a request more or less is a large share of the limit, a backend
// that fails at once when full, and work whose time varies more than the
// default ±20%: exponential, as queueing models draw it, ±50%, and
// bimodal, a cache's hits and misses; among them a capacity of 3 at three
// times its load, where most requests time out before the limit comes
// down, and a latency step under exponential work.
var OpenScenarios = []Open{
	{Name: "overload 1.5×", Length: 30 * time.Second, Capacity: 32, Load: 1.5},
	{Name: "overload 3×", Length: 30 * time.Second, Capacity: 32, Load: 3},
	{Name: "step ×1.15", Length: 30 * time.Second, Capacity: 32, Load: 2, Step: 1.15, StepAt: 10 * time.Second},
	{Name: "step ×2", Length: 30 * time.Second, Capacity: 32, Load: 2, Step: 2, StepAt: 10 * time.Second},
	{Name: "capacity 2", Length: 30 * time.Second, Capacity: 2, Load: 2},
	{Name: "capacity 8", Length: 30 * time.Second, Capacity: 8, Load: 2},
	{Name: "fail-fast 2×", Length: 30 * time.Second, Capacity: 32, Load: 2, FailFast: true},
	{Name: "exponential, capacity 2", Length: 30 * time.Second, Capacity: 2, Load: 2, Spread: Exponential},
	{Name: "exponential, capacity 3, 3×", Length: 30 * time.Second, Capacity: 3, Load: 3, Spread: Exponential},
	{Name: "exponential, capacity 8", Length: 30 * time.Second, Capacity: 8, Load: 2, Spread: Exponential},
	{Name: "exponential, capacity 32", Length: 30 * time.Second, Capacity: 32, Load: 2, Spread: Exponential},
	{Name: "±50%, capacity 8", Length: 30 * time.Second, Capacity: 8, Load: 2, Spread: Uniform50},
	{Name: "±50%, capacity 2", Length: 30 * time.Second, Capacity: 2, Load: 2, Spread: Uniform50},
	{Name: "exponential, step ×2", Length: 30 * time.Second, Capacity: 32, Load: 2, Spread: Exponential, Step: 2, StepAt: 10 * time.Second},
	{Name: "exponential, step ×2, capacity 8", Length: 30 * time.Second, Capacity: 8, Load: 2, Spread: Exponential, Step: 2, StepAt: 10 * time.Second},
	{Name: "bimodal, capacity 2", Length: 30 * time.Second, Capacity: 2, Load: 2, Spread: Bimodal},
}

// OutsideScenarios are the shapes an outside simulator found Gradient
// missing a goal in at some seeds, which TestSeeds runs at more seeds than
// the spread scenarios: bimodal work after a latency step that load did
// not cause at capacities of 2, 8 and 32, heavy tails and two kinds of
// request at 8, a lognormal tail at 2, 8 and 32 and Pareto's at 32 too,
// and at 2 two kinds, a rare slow tail, clients that wait
// far shorter or longer than ClientDeadline, and bimodal work again;
// exponential work after a step of ×1.15 at 8; and a backend of servers
// behind a queue (Open.Queue), which a second outside simulator found the
// goals missed on, at 2 and 8.
var OutsideScenarios = []Open{
	{Name: "bimodal, step ×1.15, capacity 8", Length: 30 * time.Second, Capacity: 8, Load: 2, Spread: Bimodal, Step: 1.15, StepAt: 10 * time.Second},
	{Name: "bimodal, step ×2, capacity 8", Length: 30 * time.Second, Capacity: 8, Load: 2, Spread: Bimodal, Step: 2, StepAt: 10 * time.Second},
	{Name: "bimodal, step ×1.15, capacity 2", Length: 30 * time.Second, Capacity: 2, Load: 2, Spread: Bimodal, Step: 1.15, StepAt: 10 * time.Second},
	{Name: "bimodal, step ×2, capacity 2", Length: 30 * time.Second, Capacity: 2, Load: 2, Spread: Bimodal, Step: 2, StepAt: 10 * time.Second},
	{Name: "bimodal, step ×1.15, capacity 32", Length: 30 * time.Second, Capacity: 32, Load: 2, Spread: Bimodal, Step: 1.15, StepAt: 10 * time.Second},
	{Name: "bimodal, step ×2, capacity 32", Length: 30 * time.Second, Capacity: 32, Load: 2, Spread: Bimodal, Step: 2, StepAt: 10 * time.Second},
	{Name: "Pareto α=1.5, capacity 8", Length: 30 * time.Second, Capacity: 8, Load: 2, Spread: Pareto},
	{Name: "Weibull k=0.5, capacity 8", Length: 30 * time.Second, Capacity: 8, Load: 2, Spread: Weibull},
	{Name: "Pareto α=1.5, capacity 32", Length: 30 * time.Second, Capacity: 32, Load: 2, Spread: Pareto},
	{Name: "lognormal σ=1, capacity 2", Length: 30 * time.Second, Capacity: 2, Load: 2, Spread: Lognormal},
	{Name: "lognormal σ=1, capacity 8", Length: 30 * time.Second, Capacity: 8, Load: 2, Spread: Lognormal},
	{Name: "lognormal σ=1, capacity 32", Length: 30 * time.Second, Capacity: 32, Load: 2, Spread: Lognormal},
	{Name: "2 or 18 ms, capacity 8", Length: 30 * time.Second, Capacity: 8, Load: 2, Spread: Split},
	{Name: "2 or 18 ms, capacity 2", Length: 30 * time.Second, Capacity: 2, Load: 2, Spread: Split},
	{Name: "1% slow, capacity 2", Length: 30 * time.Second, Capacity: 2, Load: 2, Spread: RareSlow},
	{Name: "exponential, capacity 2, deadline 500 ms", Length: 30 * time.Second, Capacity: 2, Load: 2, Spread: Exponential, Deadline: 500 * time.Millisecond},
	{Name: "exponential, capacity 2, deadline 50 ms", Length: 30 * time.Second, Capacity: 2, Load: 2, Spread: Exponential, Deadline: 50 * time.Millisecond},
	{Name: "bimodal, capacity 2", Length: 30 * time.Second, Capacity: 2, Load: 2, Spread: Bimodal},
	{Name: "exponential, step ×1.15, capacity 8", Length: 30 * time.Second, Capacity: 8, Load: 2, Spread: Exponential, Step: 1.15, StepAt: 10 * time.Second},
	{Name: "queue, capacity 2", Length: 30 * time.Second, Capacity: 2, Load: 2, Queue: true},
	{Name: "queue, capacity 8", Length: 30 * time.Second, Capacity: 8, Load: 2, Queue: true},
	{Name: "queue, exponential, capacity 2", Length: 30 * time.Second, Capacity: 2, Load: 2, Spread: Exponential, Queue: true},
	{Name: "queue, exponential, step ×1.15, capacity 8", Length: 30 * time.Second, Capacity: 8, Load: 2, Spread: Exponential, Step: 1.15, StepAt: 10 * time.Second, Queue: true},
	{Name: "queue, lognormal σ=1, step ×1.15, capacity 8", Length: 30 * time.Second, Capacity: 8, Load: 2, Spread: Lognormal, Step: 1.15, StepAt: 10 * time.Second, Queue: true},
}

// LongScenario is the run of 600 s that shows whether a limit drifts under
// sustained overload.
var LongScenario = Open{Name: "600 s at 2×", Length: 600 * time.Second, Capacity: 32, Load: 2}

// OpenContender is an admitter under test in one admission mode.
type OpenContender struct {
	Name  string
	Waits bool // admits with Start (or AcquirePermit), not TryStart
	New   func() Admitter
}

// Mode names the admission mode.
func (c OpenContender) Mode() string {
	if c.Waits {
		return "Start"
	}
	return "TryStart"
}

// PeerName is the contender that the goals compare with.
const PeerName = "failsafe-go defaults"

// OpenContenders are the package's algorithms in both modes and the peer,
// failsafe-go's adaptivelimiter, with its defaults and with queueing.
func OpenContenders() []OpenContender {
	var out []OpenContender
	for _, waits := range []bool{false, true} {
		for _, c := range Algorithms {
			out = append(out, OpenContender{c.Name, waits, func() Admitter { return NewLimiter(c.New(), OpenInitial, waits) }})
		}
	}
	return append(out,
		PeerContender(),
		OpenContender{"failsafe-go queueing", true, func() Admitter { return NewPeer(true) }})
}

// FixedContender is a fixed limit of size admitted with TryStart, named
// "fixed size".
func FixedContender(size int64) OpenContender {
	return OpenContender{fmt.Sprintf("fixed %d", size), false, func() Admitter { return NewLimiter(fixed{}, size, false) }}
}

// PeerContender is failsafe-go's adaptivelimiter with its defaults, which
// the goals compare with.
func PeerContender() OpenContender {
	return OpenContender{PeerName, false, func() Admitter { return NewPeer(false) }}
}

// OpenRow is one contender in one open-loop scenario.
type OpenRow struct {
	Scenario, Contender, Mode string
	Capacity                  int
	Goodput                   float64 // successes per second in the measured span
	Failed                    float64 // the fraction of requests that failed in it
	P99, Unloaded             time.Duration
	// Drift is the farthest the limit's median over a second went from
	// the capacity in the measured span, as a fraction of it: a median, so
	// that the probes of the no-load latency, which halve the limit for
	// two windows, do not count.
	Drift          float64
	VsBest, VsPeer float64 // goodput over the best fixed size's and the peer's
	BestSize       int64
	Result         Result
}

// measureOpen measures res, a run of sc.
func measureOpen(sc Open, c OpenContender, res Result) OpenRow {
	from, to := sc.measured()
	row := OpenRow{Scenario: sc.Name, Contender: c.Name, Mode: c.Mode(), Capacity: sc.Capacity,
		Unloaded: sc.unloaded(), Result: res}
	var lat []time.Duration
	for _, s := range res.Successes {
		if s.Start >= from && s.Start+s.Latency <= to {
			lat = append(lat, s.Latency)
		}
	}
	failed := 0
	var second []time.Duration // the limits of a second's ticks, as durations to reuse percentile
	for _, p := range res.Series {
		if p.T <= from || p.T > to {
			continue
		}
		failed += p.Timeouts
		if second = append(second, time.Duration(p.Limit)); len(second) == int(time.Second/Tick) {
			median := float64(percentile(second, 0.5))
			row.Drift = max(row.Drift, math.Abs(median-float64(sc.Capacity))/float64(sc.Capacity))
			second = second[:0]
		}
	}
	row.Goodput = float64(len(lat)) / (to - from).Seconds()
	row.Failed = float64(failed) / float64(max(1, failed+len(lat)))
	row.P99 = percentile(lat, 0.99)
	return row
}

// fixedSizes are the sizes swept for the best fixed size at capacity c.
func fixedSizes(c int) []int64 {
	var out []int64
	for _, f := range []float64{0.75, 1, 1.25, 1.5} {
		out = append(out, max(1, int64(math.Round(f*float64(c)))))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// CompareOpen runs every contender and the fixed sizes in sc with seed. It
// must be called inside a synctest bubble.
func CompareOpen(sc Open, contenders []OpenContender, seed uint64) []OpenRow {
	var best OpenRow
	for _, size := range fixedSizes(sc.Capacity) {
		c := OpenContender{bestName(size), false, nil}
		row := measureOpen(sc, c, RunOpen(sc, NewLimiter(fixed{}, size, false), false, seed))
		if best.Result.Series == nil || row.Goodput > best.Goodput*1.001 ||
			(row.Goodput >= best.Goodput*0.999 && row.P99 < best.P99) {
			best, best.BestSize = row, size
		}
	}
	var rows []OpenRow
	for _, c := range contenders {
		rows = append(rows, measureOpen(sc, c, RunOpen(sc, c.New(), c.Waits, seed)))
	}
	rows = append(rows, best)
	peer := rows[slices.IndexFunc(rows, func(r OpenRow) bool { return r.Contender == PeerName })]
	for i := range rows {
		rows[i].VsBest, rows[i].VsPeer, rows[i].BestSize = rows[i].Goodput/best.Goodput, rows[i].Goodput/peer.Goodput, best.BestSize
	}
	return rows
}

// OpenMisses lists the goals r misses: goodput (against the best fixed
// size), p99, peer (goodput below failsafe-go's defaults) and drift.
func OpenMisses(r OpenRow) []string {
	name := r.Scenario + "/" + r.Contender + "/" + r.Mode + ": "
	var out []string
	if r.VsBest < GoodputGoal {
		out = append(out, name+"goodput")
	}
	if r.P99 == 0 || float64(r.P99) > P99Goal*float64(r.Unloaded) {
		out = append(out, name+"p99")
	}
	if r.VsPeer < 1 {
		out = append(out, name+"peer")
	}
	if r.Drift > DriftGoal && float64(r.Capacity)*DriftGoal >= 1 {
		out = append(out, name+"drift")
	}
	return out
}

// DriftGoal is the farthest the limit may go from the capacity once
// settled, as a fraction of it; it applies where that is at least one
// request.
const DriftGoal = 0.25

// OpenTable renders rows as a Markdown table.
func OpenTable(rows []OpenRow) string {
	var b strings.Builder
	b.WriteString("| scenario | contender | mode | goodput vs best fixed | vs failsafe-go defaults | failed | p99 vs unloaded | limit's farthest from capacity |\n")
	b.WriteString("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range rows {
		p99, drift := "—", "—"
		if r.P99 > 0 {
			p99 = fmt.Sprintf("%.2f×", float64(r.P99)/float64(r.Unloaded))
		}
		if !strings.HasPrefix(r.Contender, "best") {
			drift = fmt.Sprintf("%.0f%%", 100*r.Drift)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.0f%% | %.0f%% | %.0f%% | %s | %s |\n", r.Scenario, r.Contender, r.Mode,
			100*r.VsBest, 100*r.VsPeer, 100*r.Failed, p99, drift)
	}
	return b.String()
}

var _ adaptive.Algorithm = fixed{}
