// Package chart draws the benchmark results as SVG with gonum.org/v1/plot.
// It lives in the semabench module so that plotting dependencies never
// reach the module graph of semacat's library.
//
// Every chart plots medians (report.Run.Median) and gives each contender the
// same color and glyph throughout; references are drawn dashed.
package chart

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/semacat/sem/benchmarks/semabench/report"
)

func init() {
	// Liberation Sans has the metrics of Arial and Helvetica, which viewers
	// without it substitute (see WriteSVG): labels then fit as laid out.
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	plotter.DefaultFont = plot.DefaultFont
}

// Size of every chart.
const (
	Width  = 8 * vg.Inch
	Height = 5 * vg.Inch
)

// Style is how contenders are told apart.
type Style struct {
	// Impls fixes each contender's color and glyph by its index.
	Impls []string
	// Refs are drawn dashed.
	Refs map[string]bool
}

func (s Style) line(impl string) (draw.LineStyle, draw.GlyphStyle) {
	i := slices.Index(s.Impls, impl)
	l := draw.LineStyle{Color: plotutil.Color(i), Width: vg.Points(1.5)}
	if s.Refs[impl] {
		l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	}
	g := draw.GlyphStyle{Color: plotutil.Color(i), Radius: vg.Points(3), Shape: plotutil.Shape(i)}
	return l, g
}

// Curve plots unit against the number of goroutines, one line per
// contender, over the scenarios named goroutines=N/<fixed> (for example
// fixed = "size=4/work=short"). It returns nil when fewer than two such
// scenarios are in the run.
func Curve(run *report.Run, st Style, fixed, unit, title, ylabel string) (*plot.Plot, error) {
	type point struct{ g, y float64 }
	series := map[string][]point{}
	n := 0
	for _, sc := range run.Scenarios {
		label, kv := report.Keys(sc)
		g, err := strconv.Atoi(kv["goroutines"])
		if label != "" || err != nil || "goroutines="+kv["goroutines"]+"/"+fixed != sc {
			continue
		}
		n++
		for _, impl := range run.Impls {
			if y := run.Median(sc, impl, unit); y > 0 {
				series[impl] = append(series[impl], point{float64(g), y})
			}
		}
	}
	if n < 2 {
		return nil, nil
	}
	p := newPlot(title, "goroutines", ylabel)
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, powersOfTwo{}
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, nsTicks{}
	for _, impl := range run.Impls {
		pts := series[impl]
		if len(pts) == 0 {
			continue
		}
		slices.SortFunc(pts, func(a, b point) int { return int(a.g - b.g) })
		xys := make(plotter.XYs, len(pts))
		for i, pt := range pts {
			xys[i].X, xys[i].Y = pt.g, pt.y
		}
		l, sp, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		l.LineStyle, sp.GlyphStyle = st.line(impl)
		p.Add(l, sp)
		p.Legend.Add(impl, l, sp)
	}
	p.X.Max *= 1.1 // room for the last tick's label
	return p, nil
}

// Percentiles plots the p50, p99 and max waits of each contender in one
// scenario, on a log scale. It returns nil when the run has no waits for it.
func Percentiles(run *report.Run, scenario string) (*plot.Plot, error) {
	p := newPlot("Wait before Acquire returns: "+scenario, "", "wait")
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, nsTicks{}
	var names []string
	for _, impl := range run.Impls {
		if run.Median(scenario, impl, report.P50) > 0 {
			names = append(names, impl)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	for j, u := range []struct{ unit, label string }{{report.P50, "p50"}, {report.P99, "p99"}, {report.MaxWait, "max"}} {
		var xys plotter.XYs
		for i, impl := range names {
			if y := run.Median(scenario, impl, u.unit); y > 0 {
				xys = append(xys, plotter.XY{X: float64(i), Y: y})
			}
		}
		sp, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sp.GlyphStyle = draw.GlyphStyle{Color: plotutil.Color(j), Radius: vg.Points(5), Shape: plotutil.Shape(j)}
		p.Add(sp)
		p.Legend.Add(u.label, sp)
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	return p, nil
}

// Starvation compares, for each contender of the starvation probe, the
// worst wait of the large request (the whole semaphore) with the worst wait
// of the unit requests cycling around it. It returns nil when the run has
// no such scenario.
func Starvation(run *report.Run, scenario string) (*plot.Plot, error) {
	var names []string
	var big, small plotter.Values
	for _, impl := range run.Impls {
		if b := run.Median(scenario, impl, report.BigMaxWait); b > 0 {
			names = append(names, impl)
			big = append(big, b/1e6)
			small = append(small, run.Median(scenario, impl, report.MaxWait)/1e6)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	p := newPlot("Starvation probe: "+scenario, "", "worst wait (ms)")
	p.Legend.Left = false
	w := vg.Points(30)
	for i, v := range []struct {
		vals  plotter.Values
		label string
	}{{big, "Acquire(size), the large request"}, {small, "Acquire(1), the others"}} {
		bars, err := plotter.NewBarChart(v.vals, w)
		if err != nil {
			return nil, err
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		bars.Offset = w * vg.Length(2*i-1) / 2
		p.Add(bars)
		p.Legend.Add(v.label, bars)
	}
	p.Y.Max *= 1.3 // headroom for the legend
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5 // room for the outer bars
	return p, nil
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), -vg.Points(4)
	p.Add(plotter.NewGrid())
	return p
}

// WriteSVG renders p as SVG, naming fallbacks for its font so that a viewer
// without Liberation Sans uses a font of the same metrics.
func WriteSVG(w io.Writer, p *plot.Plot) error {
	wt, err := p.WriterTo(Width, Height, "svg")
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return err
	}
	svg := bytes.ReplaceAll(b.Bytes(), []byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
	_, err = w.Write(svg)
	return err
}

var zeros = regexp.MustCompile(`\.0+`)

// nsTicks labels a log axis of nanoseconds in readable units: 100ns, 1µs.
type nsTicks struct{}

func (nsTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.LogTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" { // powers of ten: 10ns, not 10.0ns
			ticks[i].Label = zeros.ReplaceAllString(report.FormatNs(ticks[i].Value), "")
		}
	}
	return ticks
}

// powersOfTwo labels a log axis of goroutine counts: 1, 2, 4, ... 1024.
type powersOfTwo struct{}

func (powersOfTwo) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for v := math.Pow(2, math.Floor(math.Log2(lo))); v <= hi*1.0001; v *= 2 {
		ticks = append(ticks, plot.Tick{Value: v, Label: fmt.Sprint(v)})
	}
	return ticks
}
