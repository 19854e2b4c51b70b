package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/benchmarks"
)

// raceOf is the output of a race of every scenario, long ones included,
// between the catalog and extra contenders (of any size and weight), as
// go test -bench prints it: six rounds each.
func raceOf(t *testing.T, extra ...string) *Run {
	t.Helper()
	var b strings.Builder
	for _, sc := range slices.Concat(benchmarks.Scenarios, benchmarks.LongScenarios) {
		var names []string
		for _, c := range benchmarks.Catalog() {
			if c.Skip(sc) == "" {
				names = append(names, c.Name)
			}
		}
		for i, impl := range append(names, extra...) {
			for round := range 6 {
				fmt.Fprintf(&b, "BenchmarkRace/%s/impl=%s-2 1 %d ns/op\n", sc.Name, impl, 1000+100*i+round)
			}
		}
	}
	run, err := Parse(strings.NewReader(b.String()), "race.txt")
	require.NoError(t, err)
	return run
}

// tables is the header line of each table of a Brief, and the widest line.
func tables(t *testing.T, run *Run) (headers []string, widest int) {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, run.Brief(&b, 100))
	for line := range strings.Lines(b.String()) {
		widest = max(widest, utf8.RuneCountInString(strings.TrimSuffix(line, "\n")))
		if strings.HasPrefix(line, "scenario ") {
			headers = append(headers, strings.Fields(line)[1:]...)
			headers = append(headers, "|")
		}
	}
	return headers, widest
}

// Every scenario against the whole catalog fits in one table of a terminal
// of 100 columns, x/sync first.
func TestBriefFitsATerminal(t *testing.T) {
	headers, widest := tables(t, raceOf(t))
	assert.LessOrEqual(t, widest, 100)
	assert.Equal(t, []string{"xsync", "chan", "mutex", "chansem", "condsem", "condsem-fair", "spinsem", "weighted", "|"}, headers)
}

// Contenders that do not fit are split into tables of even sizes, each
// within the width.
func TestBriefSplits(t *testing.T) {
	headers, widest := tables(t, raceOf(t, "tokens", "a-semaphore-of-ours", "another-of-ours"))
	assert.LessOrEqual(t, widest, 100)
	assert.Equal(t, []string{"xsync", "chan", "mutex", "chansem", "condsem", "condsem-fair", "|",
		"spinsem", "weighted", "tokens", "a-semaphore-of-ours", "another-of-ours", "|"}, headers)
}

// The base's ns/op, then every other contender's ratio to it, ~ when not
// significant, - where it did not run.
func TestBriefCells(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, sample(t).Brief(&b, 100))
	assert.Equal(t, `xsync: its median ns/op, the base; each other column: its ratio to xsync
(~: not significant, p ≥ 0.05; -: did not run). g: goroutines, s: size
scenario                      xsync   chan mutex chansem
uncontended s=1              25.0ns 1.00×~ 0.64×   2.08×
g=2 s=4 work=short            200ns  0.75×     -   0.50×
g=64 s=4 work=short           400ns  0.50×     -   0.75×
starvation g=16 s=4           430ns      -     -   0.70×
cancel g=16 s=1 timeout=10us 2.60µs      -     -   0.62×
`, b.String())
}
