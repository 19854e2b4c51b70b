package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchmath"
)

func TestSummaryTable(t *testing.T) {
	tab := sample(t).SummaryTable()
	assert.Equal(t, []string{"scenario", "xsync", "chan", "mutex", "chansem"}, tab.Header)
	require.Len(t, tab.Rows, 5)
	// Each cell has the ratio to every other reference: xsync, chan, mutex;
	// xsync and chan are identical in uncontended (~), mutex did not run
	// size 4 (-).
	assert.Equal(t, []string{"uncontended/size=1", "25.0ns 1.00×~ 1.56×", "25.0ns 1.00×~ 1.56×", "16.0ns 0.64× 0.64×", "52.0ns 2.08× 2.08× 3.25×"}, tab.Rows[0])
	assert.Equal(t, []string{"goroutines=2/size=4/work=short", "200ns 1.33× -", "150ns 0.75× -", "-", "100ns 0.50× 0.67× -"}, tab.Rows[1])
}

func TestScenarioTable(t *testing.T) {
	run := sample(t)
	tab := run.ScenarioTable("goroutines=64/size=4/work=short")
	assert.Equal(t, []string{"contender", "ns/op", "±", "× xsync", "ops/s", "B/op", "allocs/op",
		"p50 wait", "p99 wait", "max wait", "fairness", "× chan"}, tab.Header)
	require.Len(t, tab.Rows, 3, "one row per contender that ran it")
	// Five runs are too few for a 95% interval (benchstat says ∞ too).
	assert.Equal(t, []string{"chansem", "300ns", "∞", "0.75×", "3.33M", "0", "0",
		"150ns", "3.00µs", "300µs", "0.92", "1.50×"}, tab.Rows[2])
	assert.Equal(t, "xsync", tab.Rows[0][0])
	assert.Equal(t, "ref", tab.Rows[0][3], "no ratio of the reference to itself")

	tab = run.ScenarioTable("uncontended/size=1")
	assert.Equal(t, "-", tab.Rows[0][10], "fairness needs more than one goroutine")

	tab = run.ScenarioTable("starvation/goroutines=16/size=4")
	assert.Equal(t, "large request worst wait", tab.Header[len(tab.Header)-1])
	assert.Equal(t, "20.0ms", tab.Rows[0][len(tab.Header)-1])
	assert.Equal(t, "8.00ms", tab.Rows[1][len(tab.Header)-1])

	tab = run.ScenarioTable("cancel/goroutines=16/size=1/timeout=10us")
	assert.Equal(t, "fails/op", tab.Header[len(tab.Header)-1])
	assert.Equal(t, "0.50", tab.Rows[0][len(tab.Header)-1])
}

func TestSkipped(t *testing.T) {
	run := sample(t)
	skip := func(sc, impl string) string {
		if impl == "mutex" {
			return "size 4 exceeds its maximum of 1"
		}
		return ""
	}
	assert.Empty(t, run.Skipped("uncontended/size=1", skip))
	assert.Equal(t, []string{"mutex (size 4 exceeds its maximum of 1)"}, run.Skipped("goroutines=2/size=4/work=short", skip))
	assert.Equal(t, []string{"chan (not measured in this run)", "mutex (size 4 exceeds its maximum of 1)"},
		run.Skipped("starvation/goroutines=16/size=4", skip))
	assert.Equal(t, []string{"chan (not measured in this run)", "mutex (not measured in this run)"},
		run.Skipped("starvation/goroutines=16/size=4", nil))
}

func TestMarkdown(t *testing.T) {
	run := sample(t)
	var b bytes.Buffer
	require.NoError(t, run.Markdown(&b, Document{
		Command: "make bench",
		Charts:  []Chart{{File: "goroutines-size4.svg", Caption: "cost vs goroutines"}},
		Skip:    func(string, string) string { return "why" },
	}))
	md := b.String()
	for _, want := range []string{
		"Produced by `make bench`", "- go: go1.26.0", "- run: semabench -rounds 5 -benchtime 1ms, started", "- cpu: Test CPU",
		"## Summary", "![cost vs goroutines](goroutines-size4.svg)",
		"### uncontended/size=1", "### cancel/goroutines=16/size=1/timeout=10us",
		"| contender | ns/op | ± | × xsync | ops/s | B/op | allocs/op | p50 wait | p99 wait | max wait | fairness |",
		"| chansem | 52.0ns |", "| mutex | 16.0ns |",
		"Skipped: mutex (why).",
		// benchstat's own commands, which work outside a clone, x/sync first
		"    go run golang.org/x/perf/cmd/benchstat@latest -col '/impl@(xsync chan mutex chansem)' results.txt\n",
		"    go run golang.org/x/perf/cmd/benchstat@latest old=results.txt new=later/results.txt\n",
	} {
		assert.Contains(t, md, want)
	}
	assert.NotContains(t, md, "bench-compare")
	// Every table is rectangular: rows have as many cells as the header.
	var cells int
	for line := range strings.SplitSeq(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			cells = 0
			continue
		}
		n := strings.Count(line, " | ")
		if cells == 0 {
			cells = n
		}
		assert.Equal(t, cells, n, line)
	}
}

func TestMarkdownEscapes(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Table{Header: []string{"a|b", "c"}}.Markdown(&b))
	assert.Equal(t, "| a\\|b | c |\n| --- | --: |\n", b.String())
}

// Six runs give a 95% interval; five do not (benchstat prints ∞ too).
func TestPctRange(t *testing.T) {
	th := benchmath.DefaultThresholds
	six := benchmath.AssumeNothing.Summary(benchmath.NewSample([]float64{98, 99, 100, 100, 101, 102}, &th), Confidence)
	assert.Equal(t, "±2%", pctRange(six))
	five := benchmath.AssumeNothing.Summary(benchmath.NewSample([]float64{99, 100, 100, 101, 102}, &th), Confidence)
	assert.Equal(t, "∞", pctRange(five))
}
