// Package chart draws the benchmark results as SVG with gonum.org/v1/plot.
// It lives in the semabench module so that plotting dependencies never
// reach the module graph of semacat's library.
//
// Every chart plots medians with their 95% confidence intervals as error
// bars (report.Run.Summary), on log axes, and gives each contender its own
// color and glyph throughout; references are drawn dashed. Where several
// contenders measure about the same, their points would hide each other:
// a curve's points are therefore spread sideways around their goroutine
// count, each contender always on the same side, so that every glyph and
// error bar stays visible.
//
// WriteSVG draws any plot, these and others, for a page that may be light
// or dark: on an opaque white background under the whole picture (title
// and legend included, which are black), and with headroom above and below
// the data so that no peak sits on the frame.
package chart

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"

	"codeberg.org/go-fonts/dejavu/dejavusans"
	"golang.org/x/image/font/opentype"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/semacat/sem/benchmarks/semabench/report"
)

func init() {
	face, err := opentype.Parse(dejavusans.TTF)
	if err != nil {
		panic(fmt.Sprintf("chart: parsing DejaVu Sans: %v", err))
	}
	font.DefaultCache.Add(font.Collection{{Font: layoutFont, Face: face}})
	plot.DefaultFont = layoutFont
	plotter.DefaultFont = layoutFont
}

// layoutFont is the font every text is measured with: DejaVu Sans, the
// widest of the fonts a viewer is likely to draw it with. The SVG asks for
// it first and names narrower ones after it (fontFamily), so whichever
// font a viewer has, a label fits in the room left for it.
var layoutFont = font.Font{Typeface: "DejaVu", Variant: "Sans"}

// fontFamily is the SVG's font list: DejaVu Sans, as laid out, then the
// narrower fonts of other systems, then the viewer's default sans-serif.
const fontFamily = "font-family:'DejaVu Sans','Liberation Sans',Arial,Helvetica,sans-serif;"

// Size of every chart.
const (
	Width  = 8 * vg.Inch
	Height = 5 * vg.Inch
)

// Background is the color under the whole picture.
var Background color.Color = color.White

// dodge is how far apart, in octaves of the goroutine axis, the points of
// neighbouring contenders are drawn around the same goroutine count; the
// widest spread stays well inside the octave between two counts.
const dodge = 0.09

// headroom is the share of the Y range left blank above and below the
// data (in decades on a log axis).
const headroom = 0.08

// Style is how contenders are told apart.
type Style struct {
	// Impls fixes each contender's color and glyph by its index.
	Impls []string
	// Refs are drawn dashed.
	Refs map[string]bool
}

// palette has a distinct color per contender, safe for color-blind
// readers (Okabe and Ito's eight, black last); plotutil's repeats after
// seven.
var palette = []color.Color{
	color.RGBA{0xe6, 0x9f, 0x00, 0xff}, // orange
	color.RGBA{0x56, 0xb4, 0xe9, 0xff}, // sky blue
	color.RGBA{0x00, 0x9e, 0x73, 0xff}, // bluish green
	color.RGBA{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
	color.RGBA{0x00, 0x72, 0xb2, 0xff}, // blue
	color.RGBA{0xd5, 0x5e, 0x00, 0xff}, // vermillion
	color.RGBA{0xb8, 0xa6, 0x00, 0xff}, // yellow, darkened to show on white
	color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
}

// Color is the i-th contender's color.
func Color(i int) color.Color { return palette[(i%len(palette)+len(palette))%len(palette)] }

func (s Style) line(impl string) (draw.LineStyle, draw.GlyphStyle) {
	i := slices.Index(s.Impls, impl)
	l := draw.LineStyle{Color: Color(i), Width: vg.Points(1.5)}
	if s.Refs[impl] {
		l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	}
	g := draw.GlyphStyle{Color: Color(i), Radius: vg.Points(3), Shape: plotutil.Shape(i)}
	return l, g
}

// errorPoint is a median and its confidence interval, as the error bars
// want them.
type errorPoint struct{ x, y, lo, hi float64 }

// interval is the median of unit and its confidence interval, the
// interval clamped to the sample's range when it is unbounded (too few
// runs); ok is false without a positive median.
func interval(run *report.Run, scenario, impl, unit string) (y, lo, hi float64, ok bool) {
	s, found := run.Summary(scenario, impl, unit)
	if !found || s.Center <= 0 {
		return 0, 0, 0, false
	}
	sample := run.Sample(scenario, impl, unit).Values
	lo, hi = max(s.Lo, slices.Min(sample)), min(s.Hi, slices.Max(sample))
	return s.Center, max(lo, s.Center/1e3), hi, true // a log axis cannot show 0
}

// errorBars draws the intervals of pts in c.
func errorBars(pts []errorPoint, c color.Color) (*plotter.YErrorBars, error) {
	var xys plotter.XYs
	var errs plotter.YErrors
	for _, p := range pts {
		xys = append(xys, plotter.XY{X: p.x, Y: p.y})
		errs = append(errs, struct{ Low, High float64 }{p.y - p.lo, p.hi - p.y})
	}
	bars, err := plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{xys, errs})
	if err != nil {
		return nil, err
	}
	bars.LineStyle.Color = c
	bars.LineStyle.Width = vg.Points(1)
	bars.CapWidth = vg.Points(5)
	return bars, nil
}

// Curve plots unit against the number of goroutines, one line per
// contender, over the scenarios named goroutines=N/<fixed> (for example
// fixed = "size=4/work=short"). It returns nil when fewer than two such
// scenarios are in the run.
func Curve(run *report.Run, st Style, fixed, unit, title, ylabel string) (*plot.Plot, error) {
	series := map[string][]errorPoint{}
	n := 0
	for _, sc := range run.Scenarios {
		label, kv := report.Keys(sc)
		g, err := strconv.Atoi(kv["goroutines"])
		if label != "" || err != nil || "goroutines="+kv["goroutines"]+"/"+fixed != sc {
			continue
		}
		n++
		for _, impl := range run.Impls {
			if y, lo, hi, ok := interval(run, sc, impl, unit); ok {
				series[impl] = append(series[impl], errorPoint{float64(g), y, lo, hi})
			}
		}
	}
	if n < 2 || len(series) == 0 {
		return nil, nil
	}
	p := newPlot(title, "goroutines", ylabel)
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, powersOfTwo{}
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, nsTicks{}
	var marks []plot.Plotter
	for k, impl := range run.Impls {
		pts := series[impl]
		if len(pts) == 0 {
			continue
		}
		slices.SortFunc(pts, func(a, b errorPoint) int { return int(a.x - b.x) })
		shift := spread(k, len(run.Impls))
		xys := make(plotter.XYs, len(pts))
		for i := range pts {
			pts[i].x *= shift
			xys[i].X, xys[i].Y = pts[i].x, pts[i].y
		}
		l, sp, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		l.LineStyle, sp.GlyphStyle = st.line(impl)
		bars, err := errorBars(pts, l.LineStyle.Color)
		if err != nil {
			return nil, err
		}
		p.Add(l)
		marks = append(marks, sp, bars)
		p.Legend.Add(impl, l, sp)
	}
	p.Add(marks...) // over every line, so that no line hides a point
	p.X.Min /= 1.1
	p.X.Max *= 1.1 // room for the last tick's label
	legendOutside(p)
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
		var pts []errorPoint
		for i, impl := range names {
			if y, lo, hi, ok := interval(run, scenario, impl, u.unit); ok {
				pts = append(pts, errorPoint{float64(i) + 0.2*float64(j-1), y, lo, hi})
			}
		}
		if err := addPoints(p, pts, Color(j+4), plotutil.Shape(j), u.label); err != nil {
			return nil, err
		}
	}
	nominalX(p, names)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	legendOutside(p)
	return p, nil
}

// Starvation compares, for each contender of the starvation probe, the
// worst wait of the large request (the whole semaphore) with the worst wait
// of the unit requests cycling around it, on a log axis: the waits span
// decades. It returns nil when the run has no such scenario.
func Starvation(run *report.Run, scenario string) (*plot.Plot, error) {
	var names []string
	var big, small []errorPoint
	for _, impl := range run.Impls {
		y, lo, hi, ok := interval(run, scenario, impl, report.BigMaxWait)
		if !ok {
			continue
		}
		x := float64(len(names))
		names = append(names, impl)
		big = append(big, errorPoint{x - 0.12, y, lo, hi})
		if y, lo, hi, ok := interval(run, scenario, impl, report.MaxWait); ok {
			small = append(small, errorPoint{x + 0.12, y, lo, hi})
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	p := newPlot("Starvation probe: "+scenario, "", "worst wait (log)")
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, nsTicks{}
	if err := addPoints(p, big, Color(5), draw.CircleGlyph{}, "Acquire(size): large request"); err != nil {
		return nil, err
	}
	if err := addPoints(p, small, Color(4), draw.TriangleGlyph{}, "Acquire(1): the others"); err != nil {
		return nil, err
	}
	nominalX(p, names)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	legendOutside(p)
	return p, nil
}

// addPoints draws pts as glyphs with their error bars, under label.
func addPoints(p *plot.Plot, pts []errorPoint, c color.Color, shape draw.GlyphDrawer, label string) error {
	if len(pts) == 0 {
		return nil
	}
	xys := make(plotter.XYs, len(pts))
	for i, pt := range pts {
		xys[i].X, xys[i].Y = pt.x, pt.y
	}
	sp, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	sp.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(4), Shape: shape}
	bars, err := errorBars(pts, c)
	if err != nil {
		return err
	}
	p.Add(sp, bars)
	p.Legend.Add(label, sp)
	return nil
}

// spread is the factor by which the k-th of n contenders' goroutine
// counts are multiplied on a log axis: 1 in the middle, dodge octaves
// between neighbours.
func spread(k, n int) float64 {
	return math.Exp2(dodge * (float64(k) - float64(n-1)/2))
}

// legendOutside puts the legend's entries in the order and alignment of
// the column render draws on the right of the plotting area, where it
// hides no data and is never clipped.
func legendOutside(p *plot.Plot) {
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(4), -vg.Points(24)
}

// padY widens p's Y range by headroom on each side, on the axis's scale,
// and returns a function that restores it.
func padY(p *plot.Plot) (restore func()) {
	lo, hi := p.Y.Min, p.Y.Max
	restore = func() { p.Y.Min, p.Y.Max = lo, hi }
	if hi <= lo {
		return restore
	}
	if _, isLog := p.Y.Scale.(plot.LogScale); isLog && lo > 0 {
		f := math.Pow(hi/lo, headroom)
		p.Y.Min, p.Y.Max = lo/f, hi*f
		return restore
	}
	pad := (hi - lo) * headroom
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	if lo >= 0 && p.Y.Min < 0 { // a count or a limit never shows below zero
		p.Y.Min = 0
	}
	return restore
}

// nominalX names the categories of p's X axis, the names slanted so that
// long ones next to each other never overlap.
func nominalX(p *plot.Plot, names []string) {
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = math.Pi / 6
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
}

// margin is the blank around a chart, in points.
const margin = 6

// render draws p on c on an opaque background, inside a blank margin: the
// title across the whole width at the top (not centred over the plot,
// whose column may be narrower than the title), the legend in a column of
// its own on the right, as wide as its longest entry, aligned left.
func render(p *plot.Plot, c draw.Canvas) {
	c.SetColor(Background)
	c.Fill(c.Rectangle.Path())
	defer padY(p)()
	m := vg.Points(margin)
	c = draw.Crop(c, m, -m, m, -m)
	legend, title := p.Legend, p.Title.Text
	legend.Left = true
	p.Legend, p.Title.Text = plot.NewLegend(), ""
	defer func() { p.Legend, p.Title.Text = legend, title }()
	ts := p.Title.TextStyle
	ts.XAlign, ts.YAlign = draw.XLeft, draw.YTop
	below := draw.Crop(c, 0, 0, 0, -(ts.Height(title) + ts.FontExtents().Descent + p.Title.Padding))
	r := legend.Rectangle(below)
	width := r.Max.X - r.Min.X + vg.Points(12)
	p.Draw(draw.Crop(below, 0, -width, 0, 0))
	legend.Draw(draw.Crop(below, below.Max.X-below.Min.X-width, 0, 0, 0))
	c.FillText(ts, vg.Point{X: c.Min.X, Y: c.Max.Y}, title)
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	return p
}

// WriteSVG renders p as SVG, naming after its layout font the narrower
// fonts a viewer without it may use.
func WriteSVG(w io.Writer, p *plot.Plot) error {
	canvas := vgsvg.New(Width, Height)
	render(p, draw.New(canvas))
	var b bytes.Buffer
	if _, err := canvas.WriteTo(&b); err != nil {
		return err
	}
	svg := bytes.ReplaceAll(b.Bytes(), []byte("font-family:DejaVu Sans;"), []byte(fontFamily))
	_, err := w.Write(svg)
	return err
}

var zeros = regexp.MustCompile(`\.0+`)

// nsTicks labels a log axis of nanoseconds in readable units, as
// report.FormatNs writes them.
type nsTicks struct{}

func (nsTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.LogTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" { // powers of ten: no trailing ".0"
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

// writePNG renders p as PNG, as WriteSVG lays it out: the tests look at
// the charts this way where no SVG viewer is at hand.
func writePNG(w io.Writer, p *plot.Plot) error {
	canvas := vgimg.PngCanvas{Canvas: vgimg.New(Width, Height)}
	render(p, draw.New(canvas))
	_, err := canvas.WriteTo(w)
	return err
}
