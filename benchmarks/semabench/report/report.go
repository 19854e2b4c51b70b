// Package report reads the output of semacat's benchmarks (go test -bench,
// in the format benchstat reads) and turns it into tables: medians and
// confidence intervals from golang.org/x/perf/benchmath, the statistics
// behind benchstat, never hand-rolled.
//
// The benchmarks come in two passes over the same scenarios: semabench's
// BenchmarkSemaphore or a user's benchmark calling benchmarks.Race (ns/op,
// B/op, allocs/op, fails/op), and BenchmarkLatency or one calling
// benchmarks.RaceLatency (p50-ns, p99-ns, max-ns, jain, big-max-ns), which
// reads the clock around every wait and whose own timings are therefore
// ignored. A result belongs to the latency pass when it reports a wait, to
// the other pass otherwise; each unit is taken from the pass that measures
// it.
package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// Units, and the pass each comes from.
const (
	NsPerOp     = "ns/op"
	BytesPerOp  = "B/op"
	AllocsPerOp = "allocs/op"
	FailsPerOp  = "fails/op"
	P50         = "p50-ns"
	P99         = "p99-ns"
	MaxWait     = "max-ns"
	Jain        = "jain"
	BigMaxWait  = "big-max-ns"

	// Reference is the contender every other is compared with first.
	Reference = "xsync"
)

// References are the ecosystem's contenders, each a column of ratios:
// golang.org/x/sync's Weighted, a raw buffered channel, sync.Mutex.
var References = []string{Reference, "chan", "mutex"}

var latencyUnits = []string{P50, P99, MaxWait, Jain, BigMaxWait}

// pass is the benchmark that measures unit.
func pass(unit string) string {
	if slices.Contains(latencyUnits, unit) {
		return "Latency"
	}
	return "Semaphore"
}

// passOf is the pass res belongs to: Latency when it reports a wait.
func passOf(res *benchfmt.Result) string {
	for _, v := range res.Values {
		if u, _ := unitValue(v); pass(u) == "Latency" {
			return "Latency"
		}
	}
	return "Semaphore"
}

// Run is one results file: every sample of every scenario and contender.
type Run struct {
	// Config is the file's configuration (goos, goarch, cpu, go, ...), the
	// last value of each key.
	Config map[string]string
	// ConfigKeys in order of first appearance.
	ConfigKeys []string
	// Notes are the lines starting with NotePrefix, without it.
	Notes []string
	// Scenarios in order of first appearance; Impls too, but the
	// references (see References) first, in their order: the columns of
	// every table start with the baselines of its ratios.
	Scenarios []string
	Impls     []string
	// Warnings name the results Parse dropped: a result of no iteration,
	// or with a value that is not a finite number (NaN, ±Inf), which would
	// poison every statistic of its contender.
	Warnings []string

	values map[key][]float64
}

type key struct{ bench, scenario, impl, unit string }

// NotePrefix starts a line of a results file that says how the run was
// made; benchstat ignores it.
const NotePrefix = "# "

// Parse reads go test -bench output: a results.txt of semabench, or the
// output of a benchmark that calls benchmarks.Race (or RaceLatency, or
// both). Lines that are not results or configuration (PASS, ok, notes)
// are skipped, as benchstat does, and so are benchmarks without an impl=
// level. Parse fails when two benchmarks of the same pass race the same
// scenarios, whose samples would mix: give it one benchmark's output.
func Parse(r io.Reader, fileName string) (*Run, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	run := &Run{Config: map[string]string{}, values: map[key][]float64{}}
	benchOf := map[string]string{} // pass: the benchmark that ran it
	for line := range strings.Lines(string(data)) {
		if note, ok := strings.CutPrefix(line, NotePrefix); ok {
			run.Notes = append(run.Notes, strings.TrimSpace(note))
		}
	}
	br := benchfmt.NewReader(bytes.NewReader(data), fileName)
	for br.Scan() {
		res, ok := br.Result().(*benchfmt.Result)
		if !ok {
			continue // *benchfmt.SyntaxError: a line that only looks like a result
		}
		for _, c := range res.Config {
			if !c.File {
				continue
			}
			if _, seen := run.Config[c.Key]; !seen {
				run.ConfigKeys = append(run.ConfigKeys, c.Key)
			}
			run.Config[c.Key] = string(c.Value)
		}
		name, scenario, impl := SplitName(string(res.Name.Full()))
		if impl == "" {
			continue // not one of ours
		}
		if why := unusable(res); why != "" {
			_, line := res.Pos()
			run.Warnings = append(run.Warnings, fmt.Sprintf("%s:%d: dropped Benchmark%s: %s",
				fileName, line, res.Name.Full(), why))
			continue
		}
		bench := passOf(res)
		if other, ok := benchOf[bench]; !ok {
			benchOf[bench] = name
		} else if other != name {
			return nil, fmt.Errorf("%s: Benchmark%s and Benchmark%s both race the contenders, and their results would mix; "+
				"give one benchmark's output (go test -bench '^Benchmark%s$')", fileName, other, name, other)
		}
		if !slices.Contains(run.Scenarios, scenario) {
			run.Scenarios = append(run.Scenarios, scenario)
		}
		if !slices.Contains(run.Impls, impl) {
			run.Impls = append(run.Impls, impl)
		}
		for _, v := range res.Values {
			unit, x := unitValue(v)
			k := key{bench, scenario, impl, unit}
			run.values[k] = append(run.values[k], x)
		}
	}
	run.Impls = referencesFirst(run.Impls)
	return run, br.Err()
}

// referencesFirst orders impls with the references first, in the order
// of References, and the others as they were.
func referencesFirst(impls []string) []string {
	var out []string
	for _, ref := range References {
		if slices.Contains(impls, ref) {
			out = append(out, ref)
		}
	}
	for _, impl := range impls {
		if !slices.Contains(References, impl) {
			out = append(out, impl)
		}
	}
	return out
}

// unitValue is v as the benchmark reported it: benchfmt tidies ns/op into
// sec/op and p99-ns into p99-sec; the tables keep nanoseconds.
// unusable says why res cannot be a sample: no iteration, or a value that
// is not a finite number; "" when it can.
func unusable(res *benchfmt.Result) string {
	if res.Iters <= 0 {
		return fmt.Sprintf("%d iterations", res.Iters)
	}
	for _, v := range res.Values {
		if unit, x := unitValue(v); math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprintf("%v %s", x, unit)
		}
	}
	return ""
}

func unitValue(v benchfmt.Value) (string, float64) {
	if v.OrigUnit != "" {
		return v.OrigUnit, v.OrigValue
	}
	return v.Unit, v.Value
}

// Value is the value of unit (as reported, e.g. ns/op) in res.
func Value(res *benchfmt.Result, unit string) (float64, bool) {
	for _, v := range res.Values {
		if u, x := unitValue(v); u == unit {
			return x, true
		}
	}
	return 0, false
}

// SplitName splits a benchmark name such as
// "BenchmarkSemaphore/goroutines=16/size=1/work=0/impl=chansem-2" into its
// benchmark ("Semaphore", without the Benchmark prefix), scenario and
// contender. impl is "" for other benchmarks.
func SplitName(full string) (bench, scenario, impl string) {
	base, parts := benchfmt.Name(full).Parts()
	var sc []string
	for _, p := range parts {
		s := string(p)
		switch {
		case strings.HasPrefix(s, "/impl="):
			impl = strings.TrimPrefix(s, "/impl=")
		case strings.HasPrefix(s, "/"):
			sc = append(sc, s[1:])
		}
	}
	return strings.TrimPrefix(string(base), "Benchmark"), strings.Join(sc, "/"), impl
}

// Sample is the measurements of unit for a contender in a scenario, nil
// when there are none.
func (r *Run) Sample(scenario, impl, unit string) *benchmath.Sample {
	xs := r.values[key{pass(unit), scenario, impl, unit}]
	if len(xs) == 0 {
		return nil
	}
	return benchmath.NewSample(xs, &benchmath.DefaultThresholds)
}

// Has reports whether impl ran scenario.
func (r *Run) Has(scenario, impl string) bool {
	return r.Sample(scenario, impl, NsPerOp) != nil || r.Sample(scenario, impl, P50) != nil
}

// HasUnit reports whether any contender reported unit in scenario.
func (r *Run) HasUnit(scenario, unit string) bool {
	for _, impl := range r.Impls {
		if r.Sample(scenario, impl, unit) != nil {
			return true
		}
	}
	return false
}

// Confidence of the intervals in the tables, as in benchstat.
const Confidence = 0.95

// Summary is the median of unit with its confidence interval (benchmath,
// assuming nothing about the distribution, as benchstat does by default).
func (r *Run) Summary(scenario, impl, unit string) (benchmath.Summary, bool) {
	s := r.Sample(scenario, impl, unit)
	if s == nil {
		return benchmath.Summary{}, false
	}
	return benchmath.AssumeNothing.Summary(s, Confidence), true
}

// Median is the summary's center, 0 when there is no sample.
func (r *Run) Median(scenario, impl, unit string) float64 {
	s, _ := r.Summary(scenario, impl, unit)
	return s.Center
}

// Ratio compares impl with the reference in scenario: the ratio of their
// median ns/op and whether the difference is significant (benchmath's
// Mann-Whitney U test, benchstat's "~" when it is not).
func (r *Run) Ratio(scenario, impl string) (ratio float64, significant, ok bool) {
	c, ok := r.Compare(scenario, impl, Reference)
	return c.Ratio, c.Significant(), ok
}

// Comparison is impl's median ns/op over ref's in one scenario.
type Comparison struct {
	Ratio float64
	// P is the Mann-Whitney U test's p-value, Alpha its threshold.
	P, Alpha float64
}

// Significant reports whether the difference is significant, benchstat's
// rule.
func (c Comparison) Significant() bool { return c.P < c.Alpha }

// Compare compares impl's ns/op with ref's in scenario; ok is false when
// either did not run it.
func (r *Run) Compare(scenario, impl, ref string) (Comparison, bool) {
	a, b := r.Sample(scenario, impl, NsPerOp), r.Sample(scenario, ref, NsPerOp)
	if a == nil || b == nil {
		return Comparison{}, false
	}
	ca := benchmath.AssumeNothing.Summary(a, Confidence).Center
	cb := benchmath.AssumeNothing.Summary(b, Confidence).Center
	if cb == 0 {
		return Comparison{}, false
	}
	c := benchmath.AssumeNothing.Compare(a, b)
	return Comparison{Ratio: ca / cb, P: c.P, Alpha: c.Alpha}, true
}

// Scenario keys such as goroutines=16 in a scenario's name.
func Keys(scenario string) (label string, kv map[string]string) {
	kv = map[string]string{}
	var rest []string
	for part := range strings.SplitSeq(scenario, "/") {
		if k, v, ok := strings.Cut(part, "="); ok {
			kv[k] = v
		} else {
			rest = append(rest, part)
		}
	}
	return strings.Join(rest, "/"), kv
}

// FormatNs prints a duration in ns with three significant digits and a unit
// a person reads at a glance: ns, µs, ms or s, whichever keeps one to
// three digits before the point.
func FormatNs(ns float64) string {
	units := []struct {
		div  float64
		name string
	}{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}}
	for _, u := range units {
		if ns >= u.div || u.div == 1 {
			return sig3(ns/u.div) + u.name
		}
	}
	panic("unreachable")
}

// sig3 prints x with three significant digits (and no exponent).
func sig3(x float64) string {
	switch {
	case x == 0:
		return "0"
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	case x >= 1:
		return fmt.Sprintf("%.2f", x)
	default:
		return fmt.Sprintf("%.3g", x)
	}
}
