package limitsim

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/semacat/sem/adaptive"
)

// GradientSettings are the settings of [adaptive.Gradient] that the docs
// compare: the latency it reads and the queue it allows, each with
// Gradient2's published smoothing and long-term span; beside them
// Gradient2's later tolerance, and a short span.
var GradientSettings = []adaptive.Gradient{
	gradient2(true, 4), gradient2(true, 3), gradient2(true, 2), gradient2(true, 1),
	gradient2(false, 4), gradient2(false, 3), gradient2(false, 2), gradient2(false, 1),
	{Mean: true, QueueSize: 4, Tolerance: 1.5, Smoothing: 0.2},
}

// gradient2 is Gradient2's published setting but for the latency it reads
// and its queue size.
func gradient2(mean bool, queue float64) adaptive.Gradient {
	return adaptive.Gradient{Mean: mean, QueueSize: queue, Tolerance: 1, Smoothing: 0.2}
}

// Setting is one of GradientSettings measured in every scenario.
type Setting struct {
	Gradient adaptive.Gradient
	Rows     []Row // one per scenario
}

// Sweep runs each of GradientSettings in every scenario, against the best
// fixed sizes among rows, a result of Compare. It must be called inside a
// synctest bubble.
func Sweep(rows []Row) []Setting {
	out := make([]Setting, len(GradientSettings))
	for i, g := range GradientSettings {
		out[i].Gradient = g
		c := Contender{"Gradient", func() adaptive.Algorithm { g := g; return &g }, FirstGuess}
		for _, sc := range Scenarios {
			out[i].Rows = append(out[i].Rows, against(sc, c, bestOf(rows, sc.Name)))
		}
	}
	return out
}

// bestOf returns the best fixed size's row of the scenario named sc.
func bestOf(rows []Row, sc string) Row {
	for _, r := range rows {
		if r.Scenario == sc && r.Contender == bestName(r.BestSize) {
			return r
		}
	}
	panic("limitsim: no best fixed size for " + sc)
}

// SweepTable renders settings as a Markdown table: per setting, the worst
// of each measure over the scenarios and the goals missed.
func SweepTable(settings []Setting) string {
	var b strings.Builder
	b.WriteString("| latency read | queue size | tolerance | smoothing | lowest goodput vs best fixed | highest p99 vs unloaded | settle after halving | widest swing | goals missed |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, s := range settings {
		g := s.Gradient
		read := "lowest"
		if g.Mean {
			read = "mean"
		}
		vsBest, p99, swing := 1.0, 0.0, 0.0
		settle := "—"
		var missed []string
		for _, r := range s.Rows {
			vsBest, swing = min(vsBest, r.VsBest), max(swing, r.Swing)
			if r.P99 > 0 {
				p99 = max(p99, float64(r.P99)/float64(r.Unloaded))
			}
			if r.Settle != 0 {
				settle = settleText(r.Settle)
			}
			for _, m := range Misses(r) {
				missed = append(missed, strings.Replace(m, "/"+r.Contender, "", 1))
			}
		}
		fmt.Fprintf(&b, "| %s | %v | %v | %v | %.0f%% | %.2f× | %s | ±%.0f%% | %s |\n", read,
			g.QueueSize, g.Tolerance, g.Smoothing,
			100*vsBest, p99, settle, 100*swing, cmp.Or(strings.Join(missed, ", "), "none"))
	}
	return b.String()
}
