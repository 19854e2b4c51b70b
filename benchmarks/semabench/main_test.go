package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// Reporting an existing results file writes results.md and every chart the
// data allows, replaces stale charts, and prints the summary table.
func TestReportFrom(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "old-chart.svg")
	require.NoError(t, os.WriteFile(stale, []byte("<svg/>"), 0o644))
	var out bytes.Buffer
	require.NoError(t, run(options{from: "testdata/results.txt", out: dir, command: "make bench"}, &out))

	assert.NoFileExists(t, stale)
	for _, f := range []string{"results.txt", "results.md", "goroutines-size4.svg", "latency-p99-size4.svg", "starvation.svg"} {
		info, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
		assert.Positive(t, info.Size(), f)
	}
	assert.NoFileExists(t, filepath.Join(dir, "goroutines-size1.svg"), "the sample has one size-1 point only")

	md, err := os.ReadFile(filepath.Join(dir, "results.md"))
	require.NoError(t, err)
	for _, want := range []string{
		"Produced by `make bench`", "![Starvation probe", "(starvation.svg)",
		"| contender | ns/op | ± | × xsync |", "p99 wait", "fairness",
		"Skipped: mutex (size 4 exceeds its maximum of 1).",
		"Skipped: chan (takes only one permit per request), mutex (size 4 exceeds its maximum of 1).",
	} {
		assert.Contains(t, string(md), want)
	}
	assert.NotContains(t, string(md), "old-chart")
	assert.Regexp(t, `(?m)^uncontended s=1 +25.0ns 1.00×~ 0.64× +2.08×$`, out.String())
	assert.NoFileExists(t, filepath.Join(dir, "blocks.md"), "blocks.md only when asked")
	for line := range strings.Lines(out.String()) {
		assert.LessOrEqual(t, utf8.RuneCountInString(strings.TrimSuffix(line, "\n")), summaryWidth, line)
	}
}

// -blocks writes blocks.md, whose run line quotes -command.
func TestReportBlocks(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, run(options{from: "testdata/results.txt", out: dir, command: "semabench -out x", blocks: true}, &bytes.Buffer{}))
	blocks, err := os.ReadFile(filepath.Join(dir, "blocks.md"))
	require.NoError(t, err)
	assert.Contains(t, string(blocks), "Measured by `semabench -out x` (semabench -rounds 5")
}

// -from reads the output of a user's benchmark calling benchmarks.Race:
// their contender, and ratios to x/sync.
func TestReportFromRace(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run(options{from: "testdata/race.txt", out: dir, command: "semabench -from race.txt"}, &out))
	assert.Regexp(t, `(?m)^scenario +xsync +chan +mutex +chansem +tokens$`, out.String())
	assert.Regexp(t, `(?m)^g=64 s=4 work=short +\d\S*s( +[\d.]+×~?| +-){4}$`, out.String())
	assert.NotContains(t, out.String(), " - -", "every contender has figures")
	md, err := os.ReadFile(filepath.Join(dir, "results.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| tokens | ")
}

// Input that holds no result of the race is an error that says what to give.
func TestReportFromNothing(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.txt")
	require.NoError(t, os.WriteFile(empty, []byte("PASS\nBenchmarkOther-2 10 5 ns/op\n"), 0o644))
	err := run(options{from: empty, out: t.TempDir()}, &bytes.Buffer{})
	assert.EqualError(t, err, empty+" holds no benchmark results of semacat's race (sub-benchmarks named .../impl=NAME): "+
		"give -from a results.txt that semabench wrote, or the go test -bench output of a benchmark of yours that calls benchmarks.Race")
	err = run(options{from: filepath.Join(t.TempDir(), "missing.txt"), out: t.TempDir()}, &bytes.Buffer{})
	assert.ErrorContains(t, err, "-from: open ")
}

// -impl races the contenders it matches and the references, and refuses a
// filter that matches nothing.
func TestImpl(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, round(options{bench: `^Semaphore/uncontended/`, impl: "^weighted$", benchtime: "10x"}, &out))
	impls := regexp.MustCompile(`(?m)/impl=(\S+?)(-\d+)?\s`).FindAllStringSubmatch(out.String(), -1)
	var names []string
	for _, m := range impls {
		names = append(names, m[1])
	}
	assert.Equal(t, []string{"xsync", "chan", "mutex", "weighted"}, names)
	err := run(options{impl: "wieghted", out: t.TempDir()}, &bytes.Buffer{})
	assert.ErrorContains(t, err, `-impl: benchmarks: contender filter "wieghted" matches no contender`)
}

// The default -command is the command line as typed, quoted for a shell.
// The quoting is checked as a build from a clone words it ((devel)): this
// test binary, run from the module cache, is itself a build of a version.
func TestCommandLine(t *testing.T) {
	assert.Equal(t, "semabench -rounds 1 -bench '^Semaphore/uncontended/' -out 'my results'",
		commandLineAt("(devel)", []string{"-rounds", "1", "-bench", "^Semaphore/uncontended/", "-out", "my results"}))
	assert.Equal(t, `semabench -impl 'it'\''s'`, commandLineAt("(devel)", []string{"-impl", "it's"}))
	assert.Equal(t, "semabench -out x", commandLineAt("(devel)", []string{"-out", "x"}))
	assert.Equal(t, "go run github.com/semacat/sem/benchmarks/semabench@v0.2.0 -out x",
		commandLineAt("v0.2.0", []string{"-out", "x"}), "built by go run ...@v0.2.0: rerunnable outside a clone")
}

// -from checks its input before it writes anything, and never overwrites
// another results.txt with other content; reporting the same input again,
// or results.txt in place, is fine.
func TestReportFromKeepsResults(t *testing.T) {
	keep := t.TempDir()
	require.NoError(t, run(options{from: "testdata/results.txt", out: keep, command: "c"}, &bytes.Buffer{}))
	want, err := os.ReadFile(filepath.Join(keep, "results.txt"))
	require.NoError(t, err)
	garbage := filepath.Join(t.TempDir(), "garbage.txt")
	require.NoError(t, os.WriteFile(garbage, []byte("garbage\n"), 0o644))
	assert.ErrorContains(t, run(options{from: garbage, out: keep, command: "c"}, &bytes.Buffer{}), "holds no benchmark results")
	other := filepath.Join(t.TempDir(), "other.txt")
	require.NoError(t, os.WriteFile(other, append(want, "BenchmarkSemaphore/s/impl=chan-2 1 5 ns/op\n"...), 0o644))
	assert.ErrorContains(t, run(options{from: other, out: keep, command: "c"}, &bytes.Buffer{}), "exists and differs from "+other)
	got, err := os.ReadFile(filepath.Join(keep, "results.txt"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "results.txt untouched")

	require.NoError(t, run(options{from: "testdata/results.txt", out: keep, command: "c"}, &bytes.Buffer{}))
	require.NoError(t, run(options{from: filepath.Join(keep, "results.txt"), out: keep, command: "c"}, &bytes.Buffer{}))
	fresh := filepath.Join(t.TempDir(), "new")
	assert.Error(t, run(options{from: garbage, out: fresh, command: "c"}, &bytes.Buffer{}))
	assert.NoDirExists(t, fresh, "nothing written for bad input")
}

// A NaN result in the input is dropped with a warning, not fed to the
// statistics.
func TestReportFromWarnsOfNaN(t *testing.T) {
	data, err := os.ReadFile("testdata/results.txt")
	require.NoError(t, err)
	nan := filepath.Join(t.TempDir(), "nan.txt")
	bad := "BenchmarkSemaphore/goroutines=2/size=4/work=short/impl=chan-2\t0\tNaN ns/op\n"
	require.NoError(t, os.WriteFile(nan, append(data, bad...), 0o644))
	var out bytes.Buffer
	require.NoError(t, run(options{from: nan, out: t.TempDir(), command: "c"}, &out))
	assert.Contains(t, out.String(), "semabench: warning: "+nan+":")
	assert.Contains(t, out.String(), "dropped BenchmarkSemaphore/goroutines=2/size=4/work=short/impl=chan-2: 0 iterations")
}

// Progress lines stay within summaryWidth columns, however many contenders.
func TestProgressWidth(t *testing.T) {
	var in strings.Builder
	for _, impl := range []string{"xsync", "chan", "mutex", "chansem", "condsem", "condsem-fair", "spinsem", "weighted"} {
		fmt.Fprintf(&in, "BenchmarkSemaphore/cancel/goroutines=16/size=1/timeout=10us/impl=%s-2  1000  1234567 ns/op\n", impl)
	}
	var out bytes.Buffer
	p := &progress{w: &out, start: time.Now().Add(-time.Hour), round: "round 10/10", total: 1000, done: 1}
	require.NoError(t, p.follow(strings.NewReader(in.String())))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Greater(t, len(lines), 1, "wrapped")
	for _, line := range lines {
		assert.LessOrEqual(t, utf8.RuneCountInString(line), summaryWidth, line)
	}
	assert.True(t, strings.HasPrefix(lines[1], "    "), "continuation lines are indented")
	assert.Contains(t, out.String(), "weighted 1.23ms")
}

// One progress line per scenario and pass, with each contender's figure.
func TestProgress(t *testing.T) {
	var out bytes.Buffer
	p := &progress{w: &out, start: time.Now(), round: "round 1/6", total: 10}
	require.NoError(t, p.follow(strings.NewReader(`goos: linux
BenchmarkSemaphore/uncontended/size=1/impl=chansem-2  1000  52.5 ns/op  0 B/op  0 allocs/op
BenchmarkSemaphore/uncontended/size=1/impl=xsync-2  1000  25.0 ns/op  0 B/op  0 allocs/op
BenchmarkSemaphore/goroutines=2/size=1/work=0/impl=xsync-2  1000  1500 ns/op  0 B/op  0 allocs/op
BenchmarkLatency/goroutines=2/size=1/work=0/impl=xsync-2  1000  30 p50-ns  41000 p99-ns  0 B/op  0 allocs/op
PASS
`)))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3, out.String())
	assert.Regexp(t, `^round 1/6 +0s ~0s left  Semaphore uncontended/size=1: chansem 52.5ns, xsync 25.0ns$`, lines[0])
	assert.Regexp(t, `Semaphore goroutines=2/size=1/work=0: xsync 1.50µs$`, lines[1])
	assert.Regexp(t, `Latency goroutines=2/size=1/work=0: xsync p99 41.0µs$`, lines[2])
}

// The time left is the pace so far applied to the results still to come.
func TestProgressTimeLeft(t *testing.T) {
	p := &progress{start: time.Now().Add(-10 * time.Second), done: 5, total: 20}
	assert.Equal(t, "~30s left", p.left())
	p.total = 0
	assert.Equal(t, "(time left unknown)", p.left())
	assert.Zero(t, perRound(options{bench: "Semaphore"}))
	n := perRound(options{bench: "."})
	assert.Positive(t, n)
	assert.Greater(t, perRound(options{bench: ".", long: true}), n)
}

func TestSkipReason(t *testing.T) {
	assert.Equal(t, "size 4 exceeds its maximum of 1", skipReason("goroutines=64/size=4/work=short", "mutex"))
	assert.Equal(t, "Acquire ignores its context", skipReason("cancel/goroutines=16/size=1/timeout=10us", "chan"))
	assert.Empty(t, skipReason("uncontended/size=1", "mutex"))
	assert.Empty(t, skipReason("no/such=scenario", "mutex"))
	assert.Empty(t, skipReason("uncontended/size=1", "nosuch"))
}

// A round prints what go test -bench would: the configuration, then a
// result line per benchmark that the -bench regexp picks, which the report
// reads back.
func TestRoundPrintsBenchmarkFormat(t *testing.T) {
	var out bytes.Buffer
	o := options{bench: `^Semaphore/uncontended/size=1/impl=(weighted|xsync)$`, benchtime: "20x"}
	require.NoError(t, round(o, &out))
	assert.Regexp(t, `(?m)^goos: \S+$`, out.String())
	assert.NotRegexp(t, `(?m)^cpu: .*\s$`, out.String(), "the processor's name carries no padding")
	lines := regexp.MustCompile(`(?m)^Benchmark.*$`).FindAllString(out.String(), -1)
	require.Len(t, lines, 2, out.String())
	assert.Regexp(t, `^BenchmarkSemaphore/uncontended/size=1/impl=weighted(-\d+)?\s+20\s+[\d.]+ ns/op\s+\d+ B/op\s+0 allocs/op$`, lines[1], "after the references; a byte may be the runtime's, amortized over 20 runs")

	results := filepath.Join(t.TempDir(), "results.txt")
	require.NoError(t, os.WriteFile(results, out.Bytes(), 0o644))
	require.NoError(t, run(options{from: results, out: filepath.Dir(results)}, &bytes.Buffer{}))
}

// A failed benchmark, or one that completed no op, prints no result line
// (it would say "0 NaN ns/op"); neither does one reporting a NaN.
func TestResultLineRefusesNoResult(t *testing.T) {
	_, err := resultLine("Semaphore/s/impl=chan", "5ms", testing.BenchmarkResult{})
	require.ErrorContains(t, err, "BenchmarkSemaphore/s/impl=chan failed or completed no op in -benchtime 5ms")
	_, err = resultLine("Semaphore/s/impl=chan", "5ms", testing.BenchmarkResult{N: 1, T: time.Microsecond,
		Extra: map[string]float64{"ns/op": math.NaN()}})
	require.ErrorContains(t, err, "NaN ns/op")
	line, err := resultLine("Semaphore/s/impl=chan", "5ms", testing.BenchmarkResult{N: 2, T: 2 * time.Microsecond})
	require.NoError(t, err)
	assert.Regexp(t, `^BenchmarkSemaphore/s/impl=chan(-\d+)?\t +2\t +1000 ns/op\t`, line)
}
