package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// Brief writes the summary for a terminal, no line wider than width
// columns: a row per scenario, the base's median ns/op (the first contender,
// x/sync when it ran), and every other contender's ratio to the base,
// marked ~ when not significant. The scenario column shortens goroutines=
// and size= to g= and s=; when the contenders still do not fit, the table
// is split into several, each repeating the scenario column. results.md
// has every figure in full.
func (r *Run) Brief(w io.Writer, width int) error {
	if len(r.Impls) == 0 {
		return nil
	}
	base := r.Impls[0]
	legend := []string{
		fmt.Sprintf("%s: its median ns/op, the base; each other column: its ratio to %s", base, base),
		"(~: not significant, p ≥ 0.05; -: did not run). g: goroutines, s: size",
	}
	label := column{Header: "scenario"}
	for _, sc := range r.Scenarios {
		label.Cells = append(label.Cells, shortLabel(sc))
	}
	cols := []column{{Header: base, Right: true}}
	for _, sc := range r.Scenarios {
		cols[0].Cells = append(cols[0].Cells, r.duration(sc, base, NsPerOp))
	}
	for _, impl := range r.Impls[1:] {
		c := column{Header: impl, Right: true}
		for _, sc := range r.Scenarios {
			x := strings.ReplaceAll(r.ratioTo(sc, impl, base), " ~", "~")
			if x == "" {
				x = "-"
			}
			c.Cells = append(c.Cells, x)
		}
		cols = append(cols, c)
	}
	var b strings.Builder
	for _, l := range legend {
		b.WriteString(l + "\n")
	}
	for i, part := range fit(label, cols, width) {
		if i > 0 {
			b.WriteString("\n")
		}
		writeColumns(&b, append([]column{label}, part...))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// column is a header and a cell per row, aligned left or right.
type column struct {
	Header string
	Cells  []string
	Right  bool
}

// width is the column's width in runes.
func (c column) width() int {
	n := utf8.RuneCountInString(c.Header)
	for _, s := range c.Cells {
		n = max(n, utf8.RuneCountInString(s))
	}
	return n
}

// gap is the space between two columns: one, so that eight contenders
// fit in a terminal of 100 columns, beside a scenario column of about 30.
const gap = 1

// fit splits cols into as few groups as fit in width beside label, of
// even sizes (a last table of one column reads badly), each group at least
// one column wide.
func fit(label column, cols []column, width int) [][]column {
	for parts := 1; ; parts++ {
		per := (len(cols) + parts - 1) / parts
		groups := slices.Collect(slices.Chunk(cols, per))
		fits := func(g []column) bool {
			w := label.width()
			for _, c := range g {
				w += gap + c.width()
			}
			return w <= width
		}
		if per == 1 || !slices.ContainsFunc(groups, func(g []column) bool { return !fits(g) }) {
			return groups
		}
	}
}

// writeColumns writes the header and every row of cols, aligned.
func writeColumns(b *strings.Builder, cols []column) {
	line := func(cell func(column) string) {
		var parts []string
		for _, c := range cols {
			s, pad := cell(c), strings.Repeat(" ", c.width()-utf8.RuneCountInString(cell(c)))
			if c.Right {
				s = pad + s
			} else {
				s += pad
			}
			parts = append(parts, s)
		}
		b.WriteString(strings.TrimRight(strings.Join(parts, strings.Repeat(" ", gap)), " ") + "\n")
	}
	line(func(c column) string { return c.Header })
	for i := range cols[0].Cells {
		line(func(c column) string { return c.Cells[i] })
	}
}

// shortLabel is a scenario's name for a narrow column:
// "cancel/goroutines=16/size=1/timeout=10us" is "cancel g=16 s=1 timeout=10us".
func shortLabel(sc string) string {
	var parts []string
	for part := range strings.SplitSeq(sc, "/") {
		part = strings.Replace(part, "goroutines=", "g=", 1)
		part = strings.Replace(part, "size=", "s=", 1)
		parts = append(parts, part)
	}
	return strings.Join(parts, " ")
}
