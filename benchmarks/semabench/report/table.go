package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"
)

// Table is a header and rows of cells, printable as markdown.
type Table struct {
	Header []string
	Rows   [][]string
}

// Markdown writes t as a GitHub-flavoured markdown table.
func (t Table) Markdown(w io.Writer) error {
	line := func(cells []string) string {
		esc := make([]string, len(cells))
		for i, c := range cells {
			esc[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		return "| " + strings.Join(esc, " | ") + " |\n"
	}
	var b strings.Builder
	b.WriteString(line(t.Header))
	sep := make([]string, len(t.Header))
	for i := range sep {
		sep[i] = "---"
		if i > 0 {
			sep[i] = "--:" // numbers, right-aligned
		}
	}
	b.WriteString(line(sep))
	for _, r := range t.Rows {
		b.WriteString(line(r))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// SkipFunc says why impl did not run scenario, "" if it does not know.
type SkipFunc func(scenario, impl string) string

// SummaryTable has one row per scenario and one column per contender: its
// median ns/op and its ratio to each reference of the run but itself, in
// the order of References, marked ~ when not significant.
func (r *Run) SummaryTable() Table {
	t := Table{Header: append([]string{"scenario"}, r.Impls...)}
	for _, sc := range r.Scenarios {
		row := []string{sc}
		for _, impl := range r.Impls {
			row = append(row, r.cost(sc, impl))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// RefsLegend says what the ratios of a SummaryTable cell are.
func (r *Run) RefsLegend() string {
	var refs []string
	for _, ref := range References {
		if slices.Contains(r.Impls, ref) {
			refs = append(refs, ref)
		}
	}
	return "ns/op, then the ratio to " + strings.Join(refs, ", then to ") +
		" (where it ran; ~: not significant, p ≥ 0.05)"
}

// cost is the median time per op, then its ratio to each reference, each
// followed by ~ when not significant; or "-" when impl did not run sc.
func (r *Run) cost(sc, impl string) string {
	ns, ok := r.Summary(sc, impl, NsPerOp)
	if !ok {
		return "-"
	}
	cell := FormatNs(ns.Center)
	for _, ref := range References {
		if ref == impl || !slices.Contains(r.Impls, ref) {
			continue
		}
		if x := r.ratioTo(sc, impl, ref); x != "" {
			cell += " " + strings.ReplaceAll(x, " ~", "~")
		} else {
			cell += " -"
		}
	}
	return cell
}

// ratio is "R×" for a ratio R, "R× ~" when not significant, "" without a
// reference, "ref" for the reference itself.
func (r *Run) ratio(sc, impl string) string {
	if impl == Reference {
		return "ref"
	}
	return r.ratioTo(sc, impl, Reference)
}

// ratioTo is impl's ratio to ref: "R×" for a ratio R, "R× ~" when not
// significant, "" when either did not run sc.
func (r *Run) ratioTo(sc, impl, ref string) string {
	c, ok := r.Compare(sc, impl, ref)
	if !ok {
		return ""
	}
	s := fmt.Sprintf("%.2f×", c.Ratio)
	if !c.Significant() {
		s += " ~"
	}
	return s
}

// ScenarioTable has one row per contender that ran sc.
func (r *Run) ScenarioTable(sc string) Table {
	t := Table{Header: []string{"contender", "ns/op", "±", "× " + Reference, "ops/s", "B/op", "allocs/op",
		"p50 wait", "p99 wait", "max wait", "fairness"}}
	var refs []string // other references that ran sc
	for _, ref := range References[1:] {
		if r.Has(sc, ref) {
			refs = append(refs, ref)
			t.Header = append(t.Header, "× "+ref)
		}
	}
	fails, big := r.HasUnit(sc, FailsPerOp), r.HasUnit(sc, BigMaxWait)
	if fails {
		t.Header = append(t.Header, "fails/op")
	}
	if big {
		t.Header = append(t.Header, "large request worst wait")
	}
	for _, impl := range r.Impls {
		if !r.Has(sc, impl) {
			continue
		}
		row := []string{impl}
		if ns, ok := r.Summary(sc, impl, NsPerOp); ok {
			row = append(row, FormatNs(ns.Center), pctRange(ns), r.ratio(sc, impl), throughput(ns.Center))
		} else {
			row = append(row, "-", "", "", "")
		}
		row = append(row,
			r.number(sc, impl, BytesPerOp, "%.0f"), r.number(sc, impl, AllocsPerOp, "%.0f"),
			r.duration(sc, impl, P50), r.duration(sc, impl, P99), r.duration(sc, impl, MaxWait),
			r.number(sc, impl, Jain, "%.2f"))
		for _, ref := range refs {
			if ref == impl {
				row = append(row, "ref")
			} else {
				row = append(row, r.ratioTo(sc, impl, ref))
			}
		}
		if fails {
			row = append(row, r.number(sc, impl, FailsPerOp, "%.2f"))
		}
		if big {
			row = append(row, r.duration(sc, impl, BigMaxWait))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// pctRange is the confidence interval as benchstat prints it: "±P%", or ∞
// when there are too few runs for one.
func pctRange(s benchmath.Summary) string {
	if p := s.PctRangeString(); p != "∞" {
		return "±" + p
	}
	return "∞"
}

func (r *Run) number(sc, impl, unit, format string) string {
	s, ok := r.Summary(sc, impl, unit)
	if !ok {
		return "-"
	}
	return fmt.Sprintf(format, s.Center)
}

func (r *Run) duration(sc, impl, unit string) string {
	s, ok := r.Summary(sc, impl, unit)
	if !ok {
		return "-"
	}
	return FormatNs(s.Center)
}

// throughput is ops per second for an op of ns nanoseconds: 39.8M.
func throughput(ns float64) string {
	if ns <= 0 {
		return "-"
	}
	ops := 1e9 / ns
	switch {
	case ops >= 1e6:
		return sig3(ops/1e6) + "M"
	case ops >= 1e3:
		return sig3(ops/1e3) + "k"
	}
	return sig3(ops)
}

// Skipped lists the contenders of the run that did not run sc, with the
// reason skip gives: "mutex (size 4 exceeds its maximum of 1)".
func (r *Run) Skipped(sc string, skip SkipFunc) []string {
	var out []string
	for _, impl := range r.Impls {
		if r.Has(sc, impl) {
			continue
		}
		why := ""
		if skip != nil {
			why = skip(sc, impl)
		}
		if why == "" {
			why = "not measured in this run"
		}
		out = append(out, fmt.Sprintf("%s (%s)", impl, why))
	}
	return out
}

// Document is what results.md says besides the tables.
type Document struct {
	// Command that produced the run, e.g. "make bench".
	Command string
	// Charts are SVG files next to results.md, with their captions.
	Charts []Chart
	// Skip explains missing contenders.
	Skip SkipFunc
}

// Chart is an image file and its caption.
type Chart struct{ File, Caption string }

// Markdown writes results.md: how the run was made, the summary, the charts
// and a table per scenario.
func (r *Run) Markdown(w io.Writer, d Document) error {
	var b strings.Builder
	b.WriteString("# semacat benchmark results\n\n")
	if d.Command != "" {
		fmt.Fprintf(&b, "Produced by `%s`. ", d.Command)
	}
	b.WriteString("Raw data: [results.txt](results.txt), the go test -bench output.")
	if len(r.Impls) > 0 {
		b.WriteString(" benchstat compares its contenders, " + r.Impls[0] + " the base of every ratio:\n\n" +
			"    go run golang.org/x/perf/cmd/benchstat@latest -col '/impl@(" + strings.Join(r.Impls, " ") + ")' results.txt\n\n" +
			"and two runs, such as this one and a later one:\n\n" +
			"    go run golang.org/x/perf/cmd/benchstat@latest old=results.txt new=later/results.txt")
	}
	b.WriteString("\n\n")
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "- run: %s\n", n)
	}
	for _, k := range r.ConfigKeys {
		fmt.Fprintf(&b, "- %s: %s\n", k, r.Config[k])
	}
	b.WriteString(`
How to read the tables: one op is one Acquire+Release pair (one attempt in the
cancel and tryacquire scenarios). ns/op is the median of the runs, ± its 95%
confidence interval, × ` + Reference + ` the ratio to golang.org/x/sync/semaphore's
median, and × chan and × mutex the ratios to a raw channel and sync.Mutex where
they ran, each marked ~ when the difference is not significant (p ≥ 0.05); all from
golang.org/x/perf/benchmath, the statistics behind benchstat. A contended
scenario is measured in its steady state, after the warm-up of
benchmarks/steady.go (its length is the warmup-ms metric of results.txt). Waits are timed
from the acquirer's side in a separate pass, so that reading the clock never
inflates ns/op; they include one clock read. Fairness is Jain's index over the
ops each goroutine completed: 1 when all got the same share, 1/n when one got
everything. On few cores it mostly measures the Go scheduler: a goroutine that
is never scheduled acquires nothing, whatever the semaphore does.

## Summary: ns/op and ratios to the references

` + r.RefsLegend() + ".\n\n")
	if err := r.SummaryTable().Markdown(&b); err != nil {
		return err
	}
	if len(d.Charts) > 0 {
		b.WriteString("\n## Charts\n\n")
		for _, c := range d.Charts {
			fmt.Fprintf(&b, "![%s](%s)\n\n", c.Caption, c.File)
		}
	}
	b.WriteString("## Scenarios\n")
	for _, sc := range r.Scenarios {
		fmt.Fprintf(&b, "\n### %s\n\n", sc)
		if err := r.ScenarioTable(sc).Markdown(&b); err != nil {
			return err
		}
		if s := r.Skipped(sc, d.Skip); len(s) > 0 {
			fmt.Fprintf(&b, "\nSkipped: %s.\n", strings.Join(s, ", "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
