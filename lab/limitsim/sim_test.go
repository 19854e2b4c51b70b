package limitsim_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem/lab/limitsim"
)

var update = flag.Bool("update", false, "rewrite docs/adaptive/results.md and the charts from this run")

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const docsDir = "../../docs/adaptive"

// knownMisses are the goals an algorithm misses on the simulator, as
// results.md reports them: TestScenarios fails if one is met after all, or
// another is missed, so that the list stays true.
var knownMisses []string

// TestScenarios runs every scenario once, in fake time, and the settings
// of Gradient that results.md compares, and checks the committed results
// against that run, and the goals.
//
// Under the race detector it runs only the smallest open-loop scenario,
// for the detector to watch the simulator and the limiters at work, and
// checks nothing against the committed results: the whole run takes
// minutes there. make test runs this package a second time without the
// detector, where the whole comparison runs.
func TestScenarios(t *testing.T) {
	if raceEnabled {
		raceScenario(t)
		return
	}
	var rows []limitsim.Row
	var settings []limitsim.Setting
	open := make([][]limitsim.OpenRow, len(limitsim.OpenScenarios))
	fixed := make([][]limitsim.OpenRow, len(smallCapacities))
	wide := make([][]limitsim.OpenRow, len(wideCapacities))
	t.Run("Run", func(t *testing.T) {
		for i, c := range smallCapacities {
			t.Run(fmt.Sprintf("fixed at capacity %d", c), func(t *testing.T) {
				t.Parallel()
				synctest.Test(t, func(t *testing.T) { fixed[i] = fixedAt(c) })
			})
		}
		for i, c := range wideCapacities {
			t.Run(fmt.Sprintf("fixed with exponential work at capacity %d", c), func(t *testing.T) {
				t.Parallel()
				synctest.Test(t, func(t *testing.T) { wide[i] = wideAt(c) })
			})
		}
		t.Run("closed", func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				rows = limitsim.Compare()
				settings = limitsim.Sweep(rows)
			})
		})
		for i, sc := range limitsim.OpenScenarios {
			t.Run(sc.Name, func(t *testing.T) {
				t.Parallel()
				synctest.Test(t, func(t *testing.T) {
					open[i] = limitsim.CompareOpen(sc, limitsim.OpenContenders(), openSeed)
				})
			})
		}
	})
	small := map[int][]limitsim.OpenRow{}
	for i, c := range smallCapacities {
		small[c] = fixed[i]
	}
	byCapacity := map[int][]limitsim.OpenRow{}
	for i, c := range wideCapacities {
		byCapacity[c] = wide[i]
	}
	page := results(rows, settings) + openResults(slices.Concat(open...)) + fixedResults(small) + wideResults(byCapacity)
	path := filepath.Join(docsDir, "results.md")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(page), 0o644))
		require.NoError(t, writeCharts(rows))
	}
	t.Run("Results", func(t *testing.T) {
		committed, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, unseeded(string(committed)), unseeded(page), "docs/adaptive/results.md is not what the simulator gives: go test -run TestScenarios -update")
	})
	t.Run("Goals", func(t *testing.T) {
		var missed []string
		for _, r := range rows {
			if slices.ContainsFunc(limitsim.Algorithms, func(c limitsim.Contender) bool { return c.Name == r.Contender }) {
				missed = append(missed, limitsim.Misses(r)...)
			}
		}
		assert.Equal(t, knownMisses, missed, "the goals missed differ from those results.md explains")
		missed = nil
		for _, r := range slices.Concat(open...) {
			if slices.ContainsFunc(limitsim.Algorithms, func(c limitsim.Contender) bool { return c.Name == r.Contender }) {
				missed = append(missed, limitsim.OpenMisses(r)...)
			}
		}
		assert.Equal(t, slices.Concat(knownOpenMisses, knownSpreadMisses), missed, "the goals missed differ from those results.md explains")
	})
	t.Run("Peer", func(t *testing.T) { checkFixedAtSmall(t, small) })
	t.Run("Ideal", func(t *testing.T) { checkWide(t, byCapacity) })
	t.Run("Sweep", func(t *testing.T) {
		var defaults []limitsim.Measure
		for _, r := range rows {
			if r.Contender == "Gradient" {
				defaults = append(defaults, r.Measure)
			}
		}
		var meetAll []string
		for _, s := range settings {
			if slices.ContainsFunc(s.Rows, func(r limitsim.Row) bool { return len(limitsim.Misses(r)) > 0 }) {
				continue
			}
			meetAll = append(meetAll, fmt.Sprintf("queue %v", s.Gradient.QueueSize))
			var swept []limitsim.Measure
			for _, r := range s.Rows {
				swept = append(swept, r.Measure)
			}
			if s.Gradient.QueueSize == 2 {
				assert.Equal(t, defaults, swept, "the docs say the setting with a queue of 2 is Gradient's defaults")
			}
		}
		assert.Equal(t, []string{"queue 4", "queue 3", "queue 2"}, meetAll,
			"the docs say which settings of Gradient meet every goal")
	})
}

// raceScenario runs the open-loop scenario at a capacity of 2, the
// quickest, with every contender, and the first closed-loop scenario with
// each algorithm: both loops of the simulator, for the detector to watch.
func raceScenario(t *testing.T) {
	i := slices.IndexFunc(limitsim.OpenScenarios, func(sc limitsim.Open) bool { return sc.Capacity == 2 })
	require.GreaterOrEqual(t, i, 0, "no open-loop scenario at a capacity of 2")
	synctest.Test(t, func(t *testing.T) {
		rows := limitsim.CompareOpen(limitsim.OpenScenarios[i], limitsim.OpenContenders(), openSeed)
		require.NotEmpty(t, rows)
	})
	for _, c := range limitsim.Algorithms {
		synctest.Test(t, func(t *testing.T) {
			limitsim.Run(limitsim.Scenarios[0], c.New(), c.Initial)
		})
	}
	t.Log("the race detector is on: only the open-loop scenario at a capacity of 2 and the first closed-loop scenario ran, and nothing was checked against docs/adaptive/results.md; run go test without -race for the whole comparison")
}

func results(rows []limitsim.Row, settings []limitsim.Setting) string {
	var b strings.Builder
	b.WriteString("<!-- Generated by lab/limitsim: go test -run TestScenarios -update. Do not edit. -->\n\n")
	fmt.Fprintf(&b, "Each scenario runs %s of simulated time; a request takes %v on an idle backend (%d× for a slow one), "+
		"and its client gives up after %d× that. Goodput counts successes; failed counts refusals and requests given up.\n\n",
		"30 s", limitsim.Work, limitsim.SlowFactor, limitsim.Timeout)
	b.WriteString(limitsim.Table(rows))
	b.WriteString("\n## Gradient's settings\n\n")
	fmt.Fprintf(&b, "Each setting of Gradient in every scenario, from a limit of %d, against the same best fixed sizes: "+
		"the worst of each measure over the scenarios, and the goals missed.\n\n", limitsim.FirstGuess)
	b.WriteString(limitsim.SweepTable(settings))
	return b.String()
}
