package report

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// sample is testdata/results.txt: five rounds of synthetic results whose
// medians and significance are known: each contender's values are its base
// value and base-2..base+2; xsync and chan are identical in uncontended.
func sample(t *testing.T) *Run {
	t.Helper()
	f, err := os.Open("../testdata/results.txt")
	require.NoError(t, err)
	defer f.Close()
	run, err := Parse(f, "results.txt")
	require.NoError(t, err)
	return run
}

func TestParse(t *testing.T) {
	run := sample(t)
	assert.Equal(t, []string{"xsync", "chan", "mutex", "chansem"}, run.Impls, "the references first, though chansem ran first")
	assert.Equal(t, []string{
		"uncontended/size=1", "goroutines=2/size=4/work=short", "goroutines=64/size=4/work=short",
		"starvation/goroutines=16/size=4", "cancel/goroutines=16/size=1/timeout=10us",
	}, run.Scenarios)
	assert.Equal(t, "go1.26.0", run.Config["go"])
	assert.Equal(t, []string{"semabench -rounds 5 -benchtime 1ms, started 2026-01-01T00:00:00Z"}, run.Notes)
	assert.Equal(t, "Test CPU", run.Config["cpu"])
	assert.Equal(t, []string{"go", "goos", "goarch", "pkg", "cpu"}, run.ConfigKeys)

	s := run.Sample("uncontended/size=1", "chansem", NsPerOp)
	require.NotNil(t, s)
	assert.Equal(t, []float64{50, 51, 52, 53, 54}, s.Values, "ns/op stays in ns, every round kept")
	assert.Equal(t, 52.0, run.Median("uncontended/size=1", "chansem", NsPerOp))
	assert.Equal(t, 2.0, run.Median("goroutines=2/size=4/work=short", "xsync", AllocsPerOp))

	// Each unit comes from its own pass: the latency pass's B/op is ignored
	// and its suppressed ns/op never mixes with the real one.
	assert.Equal(t, 120.0, run.Median("goroutines=2/size=4/work=short", "xsync", BytesPerOp))
	assert.Equal(t, 2000.0, run.Median("goroutines=2/size=4/work=short", "xsync", P99))
	assert.Equal(t, 0.92, run.Median("goroutines=2/size=4/work=short", "xsync", Jain))
	assert.Nil(t, run.Sample("uncontended/size=1", "xsync", Jain))
	assert.Equal(t, 8002000.0, run.Median("starvation/goroutines=16/size=4", "chansem", BigMaxWait))

	assert.True(t, run.Has("uncontended/size=1", "mutex"))
	assert.False(t, run.Has("goroutines=2/size=4/work=short", "mutex"))
}

func TestRatio(t *testing.T) {
	run := sample(t)
	x, significant, ok := run.Ratio("uncontended/size=1", "chansem")
	require.True(t, ok)
	assert.InDelta(t, 52.0/25, x, 1e-9)
	assert.True(t, significant, "five rounds, all apart: p < 0.05")

	x, significant, ok = run.Ratio("uncontended/size=1", "chan")
	require.True(t, ok)
	assert.InDelta(t, 1, x, 1e-9)
	assert.False(t, significant, "identical samples")

	_, _, ok = run.Ratio("goroutines=2/size=4/work=short", "mutex")
	assert.False(t, ok, "mutex did not run it")
}

func TestSplitName(t *testing.T) {
	for _, tc := range []struct{ name, bench, scenario, impl string }{
		{"BenchmarkSemaphore/goroutines=16/size=1/work=0/impl=chansem-2", "Semaphore", "goroutines=16/size=1/work=0", "chansem"},
		{"BenchmarkLatency/uncontended/size=1/impl=xsync", "Latency", "uncontended/size=1", "xsync"},
		{"BenchmarkOther/x=1-8", "Other", "x=1", ""},
	} {
		b, s, i := SplitName(tc.name)
		assert.Equal(t, []string{tc.bench, tc.scenario, tc.impl}, []string{b, s, i}, tc.name)
	}
}

func TestKeys(t *testing.T) {
	label, kv := Keys("starvation/goroutines=16/size=4")
	assert.Equal(t, "starvation", label)
	assert.Equal(t, map[string]string{"goroutines": "16", "size": "4"}, kv)
}

func TestFormat(t *testing.T) {
	for ns, want := range map[float64]string{
		0: "0ns", 0.5: "0.5ns", 25.34: "25.3ns", 999: "999ns", 1420: "1.42µs",
		8290303: "8.29ms", 1.2e9: "1.20s", 125000: "125µs",
	} {
		assert.Equal(t, want, FormatNs(ns), "%v", ns)
	}
	for ns, want := range map[float64]string{25: "40.0M", 1600: "625k", 2e6: "500", 0: "-"} {
		assert.Equal(t, want, throughput(ns), "%v", ns)
	}
}

// A user's benchmark calling benchmarks.Race and RaceLatency, under names
// of their own, reads as semabench's two passes: each result by its units.
func TestParseRace(t *testing.T) {
	run, err := Parse(strings.NewReader(`goos: linux
pkg: example.com/race
BenchmarkRace/uncontended/size=1/impl=tokens-2   1000  30 ns/op  0 B/op  0 allocs/op
BenchmarkRace/uncontended/size=1/impl=xsync-2    1000  25 ns/op  0 B/op  0 allocs/op
BenchmarkWaits/uncontended/size=1/impl=xsync-2   1000  99 ns/op  12 p50-ns  250 p99-ns  25000 max-ns
--- FAIL: BenchmarkRace/goroutines=16/size=1/work=0/impl=tokens-2
PASS
ok  	example.com/race	1.0s
`), "race.txt")
	require.NoError(t, err)
	assert.Equal(t, []string{"xsync", "tokens"}, run.Impls)
	assert.Equal(t, 30.0, run.Median("uncontended/size=1", "tokens", NsPerOp))
	assert.Equal(t, 25.0, run.Median("uncontended/size=1", "xsync", NsPerOp), "the latency pass's ns/op is not the race's")
	assert.Equal(t, 250.0, run.Median("uncontended/size=1", "xsync", P99))
}

// Two benchmarks racing the same contenders would mix their samples.
func TestParseRefusesTwoRaces(t *testing.T) {
	_, err := Parse(strings.NewReader(`BenchmarkRace/uncontended/size=1/impl=xsync-2 1000 25 ns/op
BenchmarkOther/uncontended/size=1/impl=xsync-2 1000 50 ns/op
`), "race.txt")
	assert.EqualError(t, err, "race.txt: BenchmarkRace and BenchmarkOther both race the contenders, and their results would mix; "+
		"give one benchmark's output (go test -bench '^BenchmarkRace$')")
}

// The run block quotes the command that made the run, never another.
func TestRunLine(t *testing.T) {
	blocks := sample(t).Blocks("semabench -out results")
	assert.Equal(t, Block{"run", "Measured by `semabench -out results` (semabench -rounds 5 -benchtime 1ms, started 2026-01-01T00:00:00Z) " +
		"on Test CPU, linux/amd64, go1.26.0; every contender called through the `sem.Semaphore` interface.\n"}, blocks[0])
	assert.NotContains(t, MarkdownBlocks(blocks), "make bench")
}

// A result of no iteration or with a NaN or infinite value is dropped with
// a warning naming its line, so that no statistic sees it (a NaN sample
// made the Mann-Whitney U test of Compare take every byte of memory).
func TestParseDropsNonFinite(t *testing.T) {
	const text = `BenchmarkSemaphore/s/impl=xsync-2	1	1890 ns/op
BenchmarkSemaphore/s/impl=chan-2	0	NaN ns/op	0 B/op
BenchmarkSemaphore/s/impl=chan-2	1	+Inf ns/op
BenchmarkSemaphore/s/impl=chan-2	1	1521 ns/op	NaN B/op
BenchmarkSemaphore/s/impl=xsync-2	1	1751 ns/op
BenchmarkSemaphore/s/impl=chan-2	1	1500 ns/op
BenchmarkSemaphore/s/impl=chan-2	1	1400 ns/op
`
	run, err := Parse(strings.NewReader(text), "nan.txt")
	require.NoError(t, err)
	require.Len(t, run.Warnings, 3)
	assert.Equal(t, "nan.txt:2: dropped BenchmarkSemaphore/s/impl=chan-2: 0 iterations", run.Warnings[0])
	assert.Contains(t, run.Warnings[1], "nan.txt:3: ")
	assert.Contains(t, run.Warnings[2], "NaN B/op")
	assert.ElementsMatch(t, []float64{1500, 1400}, run.Sample("s", "chan", NsPerOp).Values)
	_, ok := run.Compare("s", "chan", "xsync")
	assert.True(t, ok)
}
