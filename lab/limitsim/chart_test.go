package limitsim_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/semacat/sem/benchmarks/semabench/chart"
	"github.com/semacat/sem/lab/limitsim"
)

// metric is one series the charts draw over time.
type metric struct {
	file, title, ylabel string
	value               func(limitsim.Point) float64
	capacity            bool // draw the capacity as a reference
}

var metrics = []metric{
	{"limit", "Limit", "requests", func(p limitsim.Point) float64 { return float64(p.Limit) }, true},
	{"concurrency", "Requests in the backend", "requests", func(p limitsim.Point) float64 { return float64(p.InService) }, true},
	{"p99", "p99 latency of each 50 ms", "ms", func(p limitsim.Point) float64 { return float64(p.P99.Microseconds()) / 1e3 }, false},
}

// writeCharts draws, per scenario and metric, one line per algorithm over
// time, into docs/adaptive.
func writeCharts(rows []limitsim.Row) error {
	for _, sc := range limitsim.Scenarios {
		for _, m := range metrics {
			p := plot.New()
			p.Title.Text = m.title + ": " + sc.Name
			p.X.Label.Text, p.Y.Label.Text = "seconds", m.ylabel
			p.Add(plotter.NewGrid())
			p.Legend.Top = true
			var capacity plotter.XYs
			for i, c := range limitsim.Algorithms {
				var xys plotter.XYs
				for _, r := range rows {
					if r.Scenario != sc.Name || r.Contender != c.Name {
						continue
					}
					for _, pt := range r.Result.Series {
						xys = append(xys, plotter.XY{X: pt.T.Seconds(), Y: m.value(pt)})
						if i == 0 {
							capacity = append(capacity, plotter.XY{X: pt.T.Seconds(), Y: float64(pt.Capacity)})
						}
					}
				}
				if err := addLine(p, xys, c.Name, draw.LineStyle{Color: chart.Color(i), Width: vg.Points(1.5)}); err != nil {
					return err
				}
			}
			if m.capacity {
				style := draw.LineStyle{Color: chart.Color(7), Width: vg.Points(1), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}
				if err := addLine(p, capacity, "capacity", style); err != nil {
					return err
				}
			}
			var b bytes.Buffer
			if err := chart.WriteSVG(&b, p); err != nil {
				return err
			}
			name := strings.ReplaceAll(sc.Name, " ", "-") + "-" + m.file + ".svg"
			if err := os.WriteFile(filepath.Join(docsDir, name), b.Bytes(), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

func addLine(p *plot.Plot, xys plotter.XYs, name string, style draw.LineStyle) error {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	l.LineStyle = style
	p.Add(l)
	p.Legend.Add(name, l)
	return nil
}

// longTicks is how many ticks each point of the long charts summarises.
const longTicks = int(time.Second / limitsim.Tick)

// writeLongCharts draws the limit of every contender over the 600 s run,
// one chart per admission mode, into docs/adaptive: the median of each
// second, the measure of the limit's drift.
func writeLongCharts(rows []limitsim.OpenRow) error {
	for _, mode := range []string{"TryStart", "Start"} {
		p := plot.New()
		p.Title.Text = "Limit, median of each second: " + limitsim.LongScenario.Name + ", " + mode
		p.X.Label.Text, p.Y.Label.Text = "seconds", "requests"
		p.Add(plotter.NewGrid())
		p.Legend.Top = true
		var capacity plotter.XYs
		for i, r := range rows {
			if r.Mode != mode || strings.HasPrefix(r.Contender, "best") {
				continue
			}
			var xys plotter.XYs
			for j, pt := range r.Result.Series {
				if (j+1)%longTicks != 0 { // one point a second: the median of its ticks
					continue
				}
				var second []float64
				for _, q := range r.Result.Series[j+1-longTicks : j+1] {
					second = append(second, float64(q.Limit))
				}
				slices.Sort(second)
				xys = append(xys, plotter.XY{X: pt.T.Seconds(), Y: second[len(second)/2]})
				if len(capacity) < len(xys) {
					capacity = append(capacity, plotter.XY{X: pt.T.Seconds(), Y: float64(pt.Capacity)})
				}
			}
			if err := addLine(p, xys, r.Contender, draw.LineStyle{Color: chart.Color(i), Width: vg.Points(1)}); err != nil {
				return err
			}
		}
		style := draw.LineStyle{Color: chart.Color(7), Width: vg.Points(1), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}
		if err := addLine(p, capacity, "capacity", style); err != nil {
			return err
		}
		var b bytes.Buffer
		if err := chart.WriteSVG(&b, p); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(docsDir, "long-limit-"+strings.ToLower(mode)+".svg"), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
