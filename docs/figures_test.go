// The tests in this file keep the measured figures in README.md and docs/
// honest: every figure a reader sees comes from the committed reference run.
// The harness (benchmarks/semabench) writes the tables that quote it into
// docs/results/reference/blocks.md, each between
// "<!-- semabench:begin NAME -->" and "<!-- semabench:end -->", and fills
// the same markers in the pages (make bench-render). Here every block of a
// page must equal the generated one, so a figure edited by hand, or left
// behind by a new reference run, fails; and prose outside the blocks may
// not carry a timing, a ratio or a percentage of its own.
package docs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const generatedBlocks = "results/reference/blocks.md"

var (
	blockRE = regexp.MustCompile(`(?s)<!-- semabench:begin (\S+) -->\n(.*?)<!-- semabench:end -->`)
	fenceRE = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```")
	// figureRE matches what reads as a measurement: 54ns, 1.2 µs, 0.42x,
	// 3-10x, 2.5×, 30%.
	figureRE = regexp.MustCompile(`\b\d+(\.\d+)?(-\d+(\.\d+)?)?\s?(ns|µs|us|x|×|%)(\W|$)`)
)

// unmeasured are figures the pages may state because nobody measured them:
// design constants and estimates of the code's own loops.
var unmeasured = []string{
	"busy-waits about 15 ns",      // spinsem's spin loop, a design constant
	"roughly 60-250 ns",           // spinsem's spin phase, from its constants
	"busy-wait about 15 ns",       // the same, in spinsem's flowchart
	"a thousand times any",        // not a figure
	"within 1% from a nanosecond", // the histogram's precision
	"95% confidence",              // the interval's definition
	"Below 1x is faster",          // how to read a ratio
}

// exempt pages quote measurements of their own harness, not of the
// reference run.
var exempt = map[string]string{
	"distributed.md": "the distributed strategies' benchmarks run against live servers, outside the reference run",
}

// blocks returns the generated blocks of a markdown text by name, in order.
func blocks(md string) (names []string, text map[string]string) {
	text = map[string]string{}
	for _, m := range blockRE.FindAllStringSubmatch(md, -1) {
		names = append(names, m[1])
		text[m[1]] = m[2]
	}
	return names, text
}

// checkFigures reports why page is not honest about its figures, given the
// generated blocks.
func checkFigures(page, md string, generated map[string]string) []string {
	var errs []string
	names, text := blocks(md)
	for _, name := range names {
		want, ok := generated[name]
		switch {
		case !ok:
			errs = append(errs, fmt.Sprintf("block %q is not generated; see %s", name, generatedBlocks))
		case text[name] != want:
			errs = append(errs, fmt.Sprintf("block %q differs from the reference run's; do not edit it by hand, run make bench-render", name))
		}
	}
	if _, ok := exempt[filepath.Base(page)]; ok {
		return errs
	}
	prose := fenceRE.ReplaceAllString(blockRE.ReplaceAllString(md, ""), "")
	for _, ok := range unmeasured {
		prose = strings.ReplaceAll(prose, ok, "")
	}
	for _, line := range strings.Split(prose, "\n") {
		if f := figureRE.FindString(line); f != "" {
			errs = append(errs, fmt.Sprintf("a figure outside the generated blocks: %q in %q; quote the reference run through a block", strings.TrimSpace(f), strings.TrimSpace(line)))
		}
	}
	return errs
}

func TestFiguresFromReferenceRun(t *testing.T) {
	gen, err := os.ReadFile(generatedBlocks)
	require.NoError(t, err)
	_, generated := blocks(string(gen))
	require.NotEmpty(t, generated)
	pages := append(claimPages(t), "../README.md")
	used := 0
	for _, page := range pages {
		md, err := os.ReadFile(page)
		require.NoError(t, err)
		names, _ := blocks(string(md))
		used += len(names)
		for _, e := range checkFigures(page, string(md), generated) {
			t.Errorf("docs/%s: %s", page, e)
		}
	}
	assert.Positive(t, used, "no page embeds a generated block")
}

// The checker itself can fail: each dishonest page below is reported.
func TestFiguresChecker(t *testing.T) {
	generated := map[string]string{"run": "| a | 1.00× |\n"}
	for _, tc := range []struct{ name, md, wantErr string }{
		{"generated", "text\n<!-- semabench:begin run -->\n| a | 1.00× |\n<!-- semabench:end -->\n", ""},
		{"edited by hand", "<!-- semabench:begin run -->\n| a | 0.90× |\n<!-- semabench:end -->\n", "differs from the reference run's"},
		{"unknown block", "<!-- semabench:begin nosuch -->\nx\n<!-- semabench:end -->\n", "is not generated"},
		{"ratio in prose", "weighted runs at 0.42x x/sync\n", `"0.42x"`},
		{"range in prose", "the fair variant costs 3-10x x/sync\n", `"3-10x"`},
		{"timing in prose", "the herd costs about 6 µs at 512\n", `"6 µs"`},
		{"percentage in prose", "within about 30% of its reference\n", `"30%"`},
		{"figure in a code block", "```sh\nsleep 1.5x\n```\n", ""},
		{"no figure", "size 4, 16 goroutines, go1.26\n", ""},
	} {
		errs := checkFigures("page.md", tc.md, generated)
		if tc.wantErr == "" {
			assert.Empty(t, errs, tc.name)
			continue
		}
		if assert.Len(t, errs, 1, tc.name) {
			assert.Contains(t, errs[0], tc.wantErr, tc.name)
		}
	}
}

const referenceResults = "results/reference/results.txt"

// machineRE is how a page names the machine of the reference run.
var machineRE = regexp.MustCompile(`reference run had GOMAXPROCS=(\d+)`)

// referenceProcs is the GOMAXPROCS of the reference run: the "-N" that go
// test appends to every benchmark name.
func referenceProcs(t *testing.T) string {
	data, err := os.ReadFile(referenceResults)
	require.NoError(t, err)
	procs := regexp.MustCompile(`(?m)^Benchmark\S*-(\d+)\s`).FindAllStringSubmatch(string(data), -1)
	require.NotEmpty(t, procs, "no benchmark line in %s", referenceResults)
	for _, p := range procs {
		require.Equal(t, procs[0][1], p[1], "the reference run mixes GOMAXPROCS values")
	}
	return procs[0][1]
}

// checkMachine reports why a page that quotes measurements does not name
// the machine they were made on: the run block (CPU, OS, Go) and the
// sentence "reference run had GOMAXPROCS=N", with the run's N. Spinning,
// barging and the scheduler's share all depend on the processors a run had.
func checkMachine(md, procs string) []string {
	names, _ := blocks(md)
	measured := slices.ContainsFunc(names, func(n string) bool { return n != "run" })
	if !measured {
		return nil
	}
	var errs []string
	if !slices.Contains(names, "run") {
		errs = append(errs, "quotes the reference run without its run block (the CPU)")
	}
	said := machineRE.FindAllStringSubmatch(md, -1)
	if len(said) == 0 {
		errs = append(errs, fmt.Sprintf("quotes the reference run without saying %q", "reference run had GOMAXPROCS="+procs))
	}
	for _, s := range said {
		if s[1] != procs {
			errs = append(errs, fmt.Sprintf("says %q; the run had GOMAXPROCS=%s", s[0], procs))
		}
	}
	return errs
}

func TestMachineNamed(t *testing.T) {
	procs := referenceProcs(t)
	pages, err := filepath.Glob("*.md")
	require.NoError(t, err)
	for _, page := range pages {
		md, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, e := range checkMachine(string(md), procs) {
			t.Errorf("docs/%s: %s", page, e)
		}
	}
}

func TestMachineChecker(t *testing.T) {
	const run = "<!-- semabench:begin run -->\nx\n<!-- semabench:end -->\n"
	const herd = "<!-- semabench:begin herd -->\nx\n<!-- semabench:end -->\n"
	for _, tc := range []struct{ name, md, wantErr string }{
		{"named", run + herd + "The reference run had GOMAXPROCS=2.", ""},
		{"nothing measured", "no figures", ""},
		{"no run block", herd + "The reference run had GOMAXPROCS=2.", "without its run block"},
		{"no procs", run + herd, "without saying"},
		{"wrong procs", run + herd + "The reference run had GOMAXPROCS=8.", "the run had GOMAXPROCS=2"},
	} {
		errs := checkMachine(tc.md, "2")
		if tc.wantErr == "" {
			assert.Empty(t, errs, tc.name)
			continue
		}
		if assert.Len(t, errs, 1, tc.name) {
			assert.Contains(t, errs[0], tc.wantErr, tc.name)
		}
	}
}
