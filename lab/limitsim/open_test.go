package limitsim_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/lab/limitsim"
)

// openSeed draws the arrivals and the work of every open-loop run.
const openSeed = 1

// knownOpenMisses are the goals an algorithm misses in the open-loop
// scenarios, as docs/adaptive.md explains them. At capacities of 2 and 8
// none matches failsafe-go's defaults, whose limit of several times the
// capacity buys the last requests at a p99 several times the unloaded one:
// at 2 the largest fixed size that meets the p99 goal only about matches
// the peer, and an adaptive limit spends some time below it; at 8 no fixed
// size within a quarter of the capacity matches it (TestScenarios/Peer
// checks both on the fixed sizes). AIMD's sawtooth at a capacity of 2 meets
// the goodput and p99 goals by a small margin in both modes. On the fail-fast backend
// every algorithm with TryStart backs off below the capacity after each
// burst of failures, and serves a few percent less than failsafe-go's
// defaults.
var knownOpenMisses = []string{
	"capacity 2/AIMD/TryStart: peer", "capacity 2/Vegas/TryStart: peer", "capacity 2/Gradient/TryStart: peer",
	"capacity 2/AIMD/Start: peer",
	"capacity 2/Vegas/Start: peer", "capacity 2/Gradient/Start: peer",
	"capacity 8/AIMD/TryStart: peer", "capacity 8/Vegas/TryStart: peer", "capacity 8/Gradient/TryStart: peer",
	"capacity 8/AIMD/Start: peer", "capacity 8/Vegas/Start: peer", "capacity 8/Gradient/Start: peer",
	"fail-fast 2×/AIMD/TryStart: peer", "fail-fast 2×/Vegas/TryStart: peer", "fail-fast 2×/Gradient/TryStart: peer",
}

// knownSpreadMisses are the goals an algorithm misses in the open-loop
// scenarios whose work varies more than ±20%, as docs/adaptive.md explains
// them; TestScenarios expects them after knownOpenMisses. AIMD and Vegas
// read the window's fastest request, which such work makes a signal of
// nothing, and miss the goodput goal in all of them but the bimodal, and
// where the capacity is 3 or more the peer goal with it, and the drift
// goal where it applies. The bimodal work's fast half has a sharp lower
// edge, which the fastest request reads: there AIMD's sawtooth serves
// less than the peer with Start, and with TryStart its limit, whose
// median over a second reaches 4, breaks the p99 goal; with ±50% work at
// 2 it serves less than the peer in both modes. Gradient reads the
// window's mean where the work varies widely, against the probes' mean,
// and meets the goodput and p99 goals in all of them; at a capacity of 8
// it cannot meet the peer goal, as with ±20% work, and on bimodal work at
// 2 with TryStart it misses it by a few tenths of a percent (at 2 only the
// best fixed size held all the time matches the peer). With exponential
// work at 8 its limit's median strays more than a quarter above the
// capacity at times; but there the ideal is not the capacity: the fixed
// sizes from a quarter to a half over it serve within 2% of the best and
// meet the p99 goal, and the capacity serves 9% less at 8 and 3% less at
// 32 (TestScenarios/Ideal checks it on the sweep results.md shows), so a
// limit 38% over 8 is among the best sizes. After a latency step ×2 at 8
// in either mode a probe of exponential work at half the limit waits about
// a second for its samples, and one that falls within a second of the
// measure makes that second's median half the capacity (with TryStart too
// since a limit that sank below two thirds of one the backend coped with
// calls a probe from half of that limit, at 8 as at 32).
var knownSpreadMisses = slices.Concat(
	spreadMisses("exponential, capacity 2", fastest("goodput"), both()),
	spreadMisses("exponential, capacity 3, 3×", fastest("goodput", "peer"), both()),
	spreadMisses("exponential, capacity 8", fastest("goodput", "peer", "drift"),
		map[string][]string{"TryStart": {"peer", "drift"}, "Start": {"peer"}}),
	spreadMisses("exponential, capacity 32", fastest("goodput", "peer", "drift"), both()),
	spreadMisses("±50%, capacity 8", fastest("goodput", "peer", "drift"), both("peer")),
	spreadMisses("±50%, capacity 2", map[string][]string{"AIMD": {"goodput", "peer"}, "Vegas": {"goodput"}}, both()),
	spreadMisses("exponential, step ×2", fastest("goodput", "peer", "drift"), both()),
	spreadMisses("exponential, step ×2, capacity 8", fastest("goodput", "peer", "drift"), both("drift")),
	[]string{
		"bimodal, capacity 2/AIMD/TryStart: p99", "bimodal, capacity 2/Gradient/TryStart: peer",
		"bimodal, capacity 2/AIMD/Start: peer",
	},
)

// both returns goals for each admission mode.
func both(goals ...string) map[string][]string {
	return map[string][]string{"TryStart": goals, "Start": goals}
}

// fastest returns the goals that AIMD and Vegas, which read the fastest
// request, miss: goals for each.
func fastest(goals ...string) map[string][]string {
	return map[string][]string{"AIMD": goals, "Vegas": goals}
}

// spreadMisses lists, for scenario sc, the goals each algorithm misses:
// AIMD's and Vegas's in both modes in byAlg, Gradient's in each mode in
// gradient, in the order TestScenarios meets them.
func spreadMisses(sc string, byAlg, gradient map[string][]string) []string {
	var out []string
	for _, mode := range []string{"TryStart", "Start"} {
		for _, alg := range []string{"AIMD", "Vegas", "Gradient"} {
			goals := byAlg[alg]
			if alg == "Gradient" {
				goals = gradient[mode]
			}
			for _, goal := range goals {
				out = append(out, sc+"/"+alg+"/"+mode+": "+goal)
			}
		}
	}
	return out
}

// unseeded masks the numbers of the rows of failsafe-go's queueing in a
// page: it draws its rejections from math/rand's global source, which no
// seed fixes, so they vary a little from run to run.
func unseeded(page string) string {
	lines := strings.Split(page, "\n")
	for i, l := range lines {
		if cells := strings.Split(l, " | "); len(cells) > 3 && cells[1] == "failsafe-go queueing" {
			lines[i] = strings.Join(cells[:3], " | ") + " | (unseeded)"
		}
	}
	return strings.Join(lines, "\n")
}

func openResults(rows []limitsim.OpenRow) string {
	var b strings.Builder
	b.WriteString("\n## Open-loop arrivals\n\n")
	fmt.Fprintf(&b, "Requests arrive at random (Poisson) at the load times what the backend can serve, the same arrivals for every contender (seed %d); "+
		"a request takes %v ±20%% (uniform) on an idle backend, or where the scenario's name says so a time of the same mean "+
		"drawn from the exponential distribution or uniformly within ±50%%, or bimodal: nine in ten requests take half the mean and one in ten 5.5 times it, each within a fifth of its time either way; the backend shares itself among the requests beyond its capacity and never refuses; "+
		"a client gives up %v after its request arrived, and the backend goes on with the abandoned work; "+
		"the fail-fast backend instead fails at once every request that finds its capacity in service. "+
		"The best fixed size is, of 0.75, 1, 1.25 and 1.5 times the capacity (rounded), the one with the most goodput with TryStart, "+
		"the lower p99 between sizes within a thousandth: on this backend a size past 1.5 times the capacity breaks the p99 goal, "+
		"so it is the best size that meets that goal. "+
		"Every contender starts at a limit of %d. TryStart refuses at once when the limit is reached; Start waits as the Limiter allows, "+
		"and failsafe-go's queueing waits in AcquirePermit until the client's deadline; its rejections come from math/rand's global source, "+
		"which no seed fixes, so its rows vary a little from run to run and the test that checks this page ignores their numbers. "+
		"The measures count the requests that arrived from 5 s on, or from 10 s after a latency step; "+
		"p99 is against the p99 of the work alone (after the step, of the slower work); "+
		"the limit's farthest from capacity is over the same span, where the capacity is the ideal.\n\n",
		openSeed, limitsim.Service, limitsim.ClientDeadline, limitsim.OpenInitial)
	b.WriteString(limitsim.OpenTable(rows))
	return b.String()
}

// fixedSizes are the fixed sizes raced against failsafe-go's defaults at
// the small capacities, by capacity.
var fixedSizes = map[int][]int64{2: {2, 3, 4, 5, 6}, 8: {8, 9, 10, 11, 12, 13, 14}}

// smallCapacities are the capacities of fixedSizes, in order.
var smallCapacities = []int{2, 8}

// fixedAt runs fixedSizes[c] and failsafe-go's defaults in the open-loop
// scenario at capacity c. It must be called inside a synctest bubble.
func fixedAt(c int) []limitsim.OpenRow {
	sc := limitsim.OpenScenarios[slices.IndexFunc(limitsim.OpenScenarios, func(sc limitsim.Open) bool { return sc.Capacity == c })]
	var cs []limitsim.OpenContender
	for _, size := range fixedSizes[c] {
		cs = append(cs, limitsim.FixedContender(size))
	}
	rows := limitsim.CompareOpen(sc, append(cs, limitsim.PeerContender()), openSeed)
	return rows[:len(fixedSizes[c])]
}

// meetsP99 reports whether r meets the p99 goal.
func meetsP99(r limitsim.OpenRow) bool {
	return r.P99 > 0 && float64(r.P99) <= limitsim.P99Goal*float64(r.Unloaded)
}

// inBand reports whether a fixed size meets the drift goal at capacity c.
func inBand(size int64, c int) bool {
	return math.Abs(float64(size)-float64(c)) <= limitsim.DriftGoal*float64(c)
}

func fixedResults(rows map[int][]limitsim.OpenRow) string {
	var b strings.Builder
	b.WriteString("\n## Small capacities: fixed sizes against failsafe-go\n\n")
	b.WriteString("The scenarios at capacities of 2 and 8 with fixed sizes, as the best fixed size runs (TryStart, seed 1), " +
		"against failsafe-go's defaults in the same run. A fixed size never probes and never errs, so the goodput of the " +
		"sizes that meet a goal bounds what a limit that meets it can reach: the p99 goal, and the limit's distance " +
		"from the capacity (at most a quarter of it, a goal only where that is at least a request).\n\n")
	b.WriteString("| capacity | fixed size | goodput vs failsafe-go defaults | p99 vs unloaded | meets the p99 goal | within a quarter of the capacity |\n")
	b.WriteString("| ---: | ---: | ---: | ---: | --- | --- |\n")
	yes := map[bool]string{true: "yes", false: "no"}
	for _, c := range smallCapacities {
		for i, r := range rows[c] {
			size := fixedSizes[c][i]
			band := yes[inBand(size, c)]
			if float64(c)*limitsim.DriftGoal < 1 { // the goal applies from a request on
				band = "—"
			}
			fmt.Fprintf(&b, "| %d | %d | %.1f%% | %.2f× | %s | %s |\n", c, size, 100*r.VsPeer,
				float64(r.P99)/float64(r.Unloaded), yes[meetsP99(r)], band)
		}
	}
	return b.String()
}

// checkFixedAtSmall checks what docs/adaptive.md says of the peer goal at
// the small capacities. At 2, the largest fixed size that meets the p99
// goal serves within a percent of failsafe-go's defaults and the sizes
// above it break the goal, so a limit that meets the p99 goal beats the
// peer only by being that size all the time. At 8, no fixed size within a
// quarter of the capacity serves as much as the peer, so a limit that
// meets the drift goal cannot meet the peer goal.
func checkFixedAtSmall(t *testing.T, rows map[int][]limitsim.OpenRow) {
	two := rows[2]
	last := -1
	for i, r := range two {
		if meetsP99(r) {
			last = i
		}
	}
	require.GreaterOrEqual(t, last, 0, "no fixed size meets the p99 goal at a capacity of 2")
	require.Less(t, last, len(two)-1, "the largest fixed size raced at 2 meets the p99 goal: race larger ones")
	assert.Less(t, two[last].VsPeer, 1.01, "the docs say the largest fixed size meeting the p99 goal at 2 serves within a percent of failsafe-go's defaults")
	for _, r := range two[last+1:] {
		assert.False(t, meetsP99(r), "the docs say the sizes above %d break the p99 goal", fixedSizes[2][last])
	}
	for i, r := range rows[8] {
		if size := fixedSizes[8][i]; inBand(size, 8) {
			assert.Less(t, r.VsPeer, 1.0, "the docs say no fixed size within a quarter of 8 serves as much as failsafe-go's defaults; %d does", size)
		}
	}
}

// TestLong runs the 600 s scenario, when LIMITSIM_LONG is set: it takes
// minutes. It checks docs/adaptive/long.md and the limit's traces against
// that run, or rewrites them with -update.
func TestLong(t *testing.T) {
	if os.Getenv("LIMITSIM_LONG") == "" {
		t.Skip("set LIMITSIM_LONG=1 to run the 600 s scenario")
	}
	var rows []limitsim.OpenRow
	synctest.Test(t, func(t *testing.T) {
		rows = limitsim.CompareOpen(limitsim.LongScenario, limitsim.OpenContenders(), openSeed)
	})
	var b strings.Builder
	b.WriteString("<!-- Generated by lab/limitsim: LIMITSIM_LONG=1 go test -run TestLong -update. Do not edit. -->\n\n")
	fmt.Fprintf(&b, "%.0f s of open-loop arrivals at twice what a backend of capacity %d serves, as in results.md's open-loop scenarios, "+
		"measured from 5 s on.\n\n", limitsim.LongScenario.Length.Seconds(), limitsim.LongScenario.Capacity)
	b.WriteString(limitsim.OpenTable(rows))
	page := b.String()
	path := filepath.Join(docsDir, "long.md")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(page), 0o644))
		require.NoError(t, writeLongCharts(rows))
	}
	committed, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, unseeded(string(committed)), unseeded(page), "docs/adaptive/long.md is not what the simulator gives: LIMITSIM_LONG=1 go test -run TestLong -update")
	var missed []string
	for _, r := range rows {
		if slices.ContainsFunc(limitsim.Algorithms, func(c limitsim.Contender) bool { return c.Name == r.Contender }) {
			missed = append(missed, limitsim.OpenMisses(r)...)
		}
	}
	assert.Empty(t, missed, "docs/adaptive.md says every algorithm meets every goal over 600 s")
}

// wideCapacities are the capacities of the scenarios of exponential work
// whose fixed sizes TestScenarios sweeps around the capacity, and
// wideShares the sizes, as shares of the capacity.
var (
	wideCapacities = []int{8, 32}
	wideShares     = []float64{0.75, 0.875, 1, 1.125, 1.25, 1.375, 1.5, 1.625, 1.75}
)

// wideSizes returns the fixed sizes swept at capacity c.
func wideSizes(c int) []int64 {
	var out []int64
	for _, f := range wideShares {
		out = append(out, int64(math.Round(f*float64(c))))
	}
	return out
}

// wideAt runs the fixed sizes of wideSizes(c) in the scenario of
// exponential work at capacity c, and returns their rows, against the
// best of them. It must be called inside a synctest bubble.
func wideAt(c int) []limitsim.OpenRow {
	name := fmt.Sprintf("exponential, capacity %d", c)
	sc := limitsim.OpenScenarios[slices.IndexFunc(limitsim.OpenScenarios, func(sc limitsim.Open) bool { return sc.Name == name })]
	var cs []limitsim.OpenContender
	for _, size := range wideSizes(c) {
		cs = append(cs, limitsim.FixedContender(size))
	}
	rows := limitsim.CompareOpen(sc, append(cs, limitsim.PeerContender()), openSeed)[:len(cs)]
	best := 0.0
	for _, r := range rows {
		if meetsP99(r) {
			best = max(best, r.Goodput)
		}
	}
	for i := range rows {
		rows[i].VsBest = rows[i].Goodput / best
	}
	return rows
}

func wideResults(rows map[int][]limitsim.OpenRow) string {
	var b strings.Builder
	b.WriteString("\n## Exponential work: fixed sizes around the capacity\n\n")
	b.WriteString("The scenarios of exponential work at capacities of 8 and 32 with fixed sizes from 0.75 to 1.75 times the capacity " +
		"(TryStart, seed 1), each against the most goodput of the sizes that meet the p99 goal. " +
		"Where the work varies this widely the backend idles at times with the capacity in flight, so the goodput goes on rising past it, " +
		"and the sizes that serve the most and meet the p99 goal lie between a quarter and a half over the capacity: the limit's distance " +
		"from the capacity, the drift goal, does not measure its distance from the ideal there.\n\n")
	b.WriteString("| capacity | fixed size | goodput vs the best that meets the p99 goal | p99 vs unloaded | meets the p99 goal | within a quarter of the capacity |\n")
	b.WriteString("| ---: | ---: | ---: | ---: | --- | --- |\n")
	yes := map[bool]string{true: "yes", false: "no"}
	for _, c := range wideCapacities {
		for i, r := range rows[c] {
			size := wideSizes(c)[i]
			fmt.Fprintf(&b, "| %d | %d | %.1f%% | %.2f× | %s | %s |\n", c, size, 100*r.VsBest,
				float64(r.P99)/float64(r.Unloaded), yes[meetsP99(r)], yes[inBand(size, c)])
		}
	}
	return b.String()
}

// checkWide checks what docs/adaptive.md and knownSpreadMisses say of the
// drift goal with exponential work: the sizes from a quarter to a half
// over the capacity meet the p99 goal and serve within 2% of the best
// size that meets it, and the capacity itself serves less, so that a
// limit that strays more than a quarter above the capacity can be at the
// ideal.
func checkWide(t *testing.T, rows map[int][]limitsim.OpenRow) {
	for _, c := range wideCapacities {
		for i, r := range rows[c] {
			switch f := wideShares[i]; {
			case f == 1:
				assert.Less(t, r.VsBest, 0.98, "the docs say the capacity, %d, serves less than 98%% of the best fixed size", c)
			case f >= 1.25 && f <= 1.5:
				assert.True(t, meetsP99(r), "the docs say %d, %.3g times the capacity, meets the p99 goal", wideSizes(c)[i], f)
				assert.GreaterOrEqual(t, r.VsBest, 0.98, "the docs say %d, %.3g times the capacity, serves within 2%% of the best fixed size", wideSizes(c)[i], f)
			}
		}
	}
}
