package chart

import (
	"bytes"
	"encoding/xml"
	"image/color"
	"io"
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"github.com/semacat/sem/benchmarks/semabench/report"
)

// box is a rectangle in the SVG's coordinates (points, y down).
type box struct{ x0, y0, x1, y1 float64 }

func (b box) contains(x, y float64) bool {
	return b.x0 <= x && x <= b.x1 && b.y0 <= y && y <= b.y1
}

// svgPaint is what an SVG draws, in order: each opaque filled polygon's
// bounding box, and each text with its anchor point.
type svgPaint struct {
	first  *box // the first element drawn, when it is an opaque polygon
	opaque []box
	texts  []paintedText
}

type paintedText struct {
	s    string
	x, y float64
	// under is whether an opaque polygon drawn before the text holds its
	// anchor: on a dark page, a black text without one is invisible.
	under bool
}

var (
	coords    = regexp.MustCompile(`-?[0-9.]+(?:e-?[0-9]+)?`)
	polygon   = regexp.MustCompile(`^(?:[ML]-?[0-9.e-]+,-?[0-9.e-]+)+Z?$`)
	fillStyle = regexp.MustCompile(`(?:^|;)fill:([^;]+)`)
	fillAlpha = regexp.MustCompile(`fill-opacity:([^;]+)`)
)

// affine is an SVG transform matrix: (x, y) -> (a x + c y + e, b x + d y + f).
type affine struct{ a, b, c, d, e, f float64 }

var identity = affine{a: 1, d: 1}

func (m affine) then(n affine) affine { // m applied after n
	return affine{
		a: m.a*n.a + m.c*n.b, b: m.b*n.a + m.d*n.b,
		c: m.a*n.c + m.c*n.d, d: m.b*n.c + m.d*n.d,
		e: m.a*n.e + m.c*n.f + m.e, f: m.b*n.e + m.d*n.f + m.f,
	}
}

func (m affine) apply(x, y float64) (float64, float64) {
	return m.a*x + m.c*y + m.e, m.b*x + m.d*y + m.f
}

var transformOp = regexp.MustCompile(`(scale|translate|rotate)\(([^)]*)\)`)

// transform parses the scale, translate and rotate operations vgsvg writes.
func transform(t *testing.T, s string) affine {
	m := identity
	for _, op := range transformOp.FindAllStringSubmatch(s, -1) {
		var v []float64
		for _, n := range coords.FindAllString(op[2], -1) {
			f, err := strconv.ParseFloat(n, 64)
			require.NoError(t, err)
			v = append(v, f)
		}
		var n affine
		switch op[1] {
		case "scale":
			n = affine{a: v[0], d: v[len(v)-1]}
		case "translate":
			n = affine{a: 1, d: 1, e: v[0], f: v[1]}
		case "rotate":
			sin, cos := math.Sincos(v[0] * math.Pi / 180)
			n = affine{a: cos, b: sin, c: -sin, d: cos}
		}
		m = m.then(n)
	}
	return m
}

// paint parses an SVG written by WriteSVG, in the SVG's own coordinates
// (points, y down), through the groups' transforms.
func paint(t *testing.T, svg []byte) svgPaint {
	t.Helper()
	var out svgPaint
	d := xml.NewDecoder(bytes.NewReader(svg))
	stack := []affine{identity}
	var text *paintedText
	elements := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err, "the SVG must be well-formed XML")
		switch tok := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range tok.Attr {
				attr[a.Name.Local] = a.Value
			}
			m := stack[len(stack)-1].then(transform(t, attr["transform"]))
			stack = append(stack, m)
			switch tok.Name.Local {
			case "path":
				elements++
				if b, ok := opaquePolygon(m, attr["d"], attr["style"]); ok {
					out.opaque = append(out.opaque, b)
					if elements == 1 {
						out.first = &b
					}
				}
			case "text":
				elements++
				x, err1 := strconv.ParseFloat(attr["x"], 64)
				y, err2 := strconv.ParseFloat(attr["y"], 64)
				require.NoError(t, err1)
				require.NoError(t, err2)
				text = &paintedText{}
				text.x, text.y = m.apply(x, y)
				for _, b := range out.opaque {
					text.under = text.under || b.contains(text.x, text.y)
				}
			}
		case xml.CharData:
			if text != nil {
				text.s += string(tok)
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			if tok.Name.Local == "text" && text != nil {
				out.texts = append(out.texts, *text)
				text = nil
			}
		}
	}
}

// opaquePolygon is the bounding box of a path of straight lines filled
// with an opaque color.
func opaquePolygon(m affine, d, style string) (box, bool) {
	fill := fillStyle.FindStringSubmatch(style)
	if fill == nil || fill[1] == "none" || !polygon.MatchString(d) {
		return box{}, false
	}
	if a := fillAlpha.FindStringSubmatch(style); a != nil {
		if v, err := strconv.ParseFloat(a[1], 64); err != nil || v < 1 {
			return box{}, false
		}
	}
	b := box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	nums := coords.FindAllString(d, -1)
	for i := 0; i+1 < len(nums); i += 2 {
		x, _ := strconv.ParseFloat(nums[i], 64)
		y, _ := strconv.ParseFloat(nums[i+1], 64)
		x, y = m.apply(x, y)
		b = box{min(b.x0, x), min(b.y0, y), max(b.x1, x), max(b.y1, y)}
	}
	return b, true
}

// linePlot is a plot as other packages build it and hand to WriteSVG:
// linear axes, a legend, a title, lines whose peak is the Y range's edge.
func linePlot(t *testing.T) *plot.Plot {
	p := plot.New()
	p.Title.Text = "Limit: halves"
	p.X.Label.Text, p.Y.Label.Text = "seconds", "requests"
	p.Add(plotter.NewGrid())
	for i, ys := range [][]float64{{10, 46, 22, 46}, {12, 40, 20, 40}} {
		xys := make(plotter.XYs, len(ys))
		for j, y := range ys {
			xys[j] = plotter.XY{X: float64(j), Y: y}
		}
		l, err := plotter.NewLine(xys)
		require.NoError(t, err)
		l.LineStyle = draw.LineStyle{Color: Color(i), Width: vg.Points(1.5)}
		p.Add(l)
		p.Legend.Add([]string{"AIMD", "capacity"}[i], l)
	}
	return p
}

// Every text of every kind of chart is drawn over an opaque background,
// the title and the legend included, and that background is the first
// thing drawn and covers the whole picture: a page with a dark theme shows
// the chart as it shows on white.
func TestOpaqueBackgroundUnderEveryText(t *testing.T) {
	run := syntheticRun(t)
	st := Style{Impls: run.Impls, Refs: map[string]bool{"xsync": true, "chan": true, "mutex": true}}
	plots := map[string]func() (*plot.Plot, error){
		"curve": func() (*plot.Plot, error) {
			return Curve(run, st, "size=4/work=yield", report.NsPerOp, "Waiters piling up", "ns/op")
		},
		"percentiles": func() (*plot.Plot, error) { return Percentiles(run, "goroutines=16/size=1/work=0") },
		"starvation":  func() (*plot.Plot, error) { return Starvation(run, "starvation/goroutines=16/size=4") },
		"line":        func() (*plot.Plot, error) { return linePlot(t), nil },
	}
	for name, draw := range plots {
		p, err := draw()
		require.NoError(t, err, name)
		var b bytes.Buffer
		require.NoError(t, WriteSVG(&b, p), name)
		got := paint(t, b.Bytes())
		require.NotNil(t, got.first, "%s: the first thing drawn is not an opaque background", name)
		assert.True(t, got.first.contains(0, 0) && got.first.contains(Width.Points(), Height.Points()),
			"%s: the background %v does not cover the picture", name, *got.first)
		require.NotEmpty(t, got.texts, name)
		var seen []string
		for _, txt := range got.texts {
			seen = append(seen, txt.s)
			assert.True(t, txt.under, "%s: %q at (%.0f, %.0f) is drawn on a transparent background", name, txt.s, txt.x, txt.y)
		}
		assert.Contains(t, seen, p.Title.Text, "%s: the title is missing", name)
	}
}

// The parser above finds a transparent title: a picture whose background
// covers only the plotting area fails the test.
func TestPaintFindsATransparentTitle(t *testing.T) {
	svg := `<svg><g transform="scale(1, -1) translate(0, -360)">` +
		`<path d="M6,6L455,6L455,337L6,337Z" style="fill:#FFFFFF" />` +
		`<text x="10" y="-350" transform="scale(1, -1)">Title</text>` +
		`<g transform="translate(100, 100)"><g transform="rotate(90)">` +
		`<text x="0" y="0" transform="scale(1, -1)">inside</text></g></g>` +
		`<path d="M0,0L576,0L576,360L0,360Z" style="fill:#FFFFFF;fill-opacity:0.5" />` +
		`</g></svg>`
	got := paint(t, []byte(svg))
	require.Len(t, got.texts, 2)
	assert.False(t, got.texts[0].under, "the title lies outside the only background")
	assert.True(t, got.texts[1].under)
	require.NotNil(t, got.first)
	assert.False(t, got.first.contains(0, 0), "this background leaves the corner bare")
	assert.Len(t, got.opaque, 1, "a half-transparent fill is no background")
}

// The Y range leaves room above the highest value and below the lowest,
// on both scales, without moving a count's zero; rendering restores the
// plot's own range, so that drawing twice draws the same picture.
func TestHeadroom(t *testing.T) {
	p := plot.New()
	p.Y.Min, p.Y.Max = 10, 46
	restore := padY(p)
	assert.Greater(t, p.Y.Max, 46.0)
	assert.Less(t, p.Y.Min, 10.0)
	restore()
	assert.Equal(t, [2]float64{10, 46}, [2]float64{p.Y.Min, p.Y.Max})

	p.Y.Min, p.Y.Max = 0, 46
	defer padY(p)()
	assert.Equal(t, 0.0, p.Y.Min, "a count never shows below zero")
	assert.Greater(t, p.Y.Max, 46.0)

	q := plot.New()
	q.Y.Scale, q.Y.Min, q.Y.Max = plot.LogScale{}, 100, 1e5
	padY(q)
	assert.InDelta(t, 1e5*math.Pow(1e3, headroom), q.Y.Max, 1e-6)
	assert.InDelta(t, 100/math.Pow(1e3, headroom), q.Y.Min, 1e-9)

	l := linePlot(t)
	var first, second bytes.Buffer
	require.NoError(t, WriteSVG(&first, l))
	require.NoError(t, WriteSVG(&second, l))
	assert.Equal(t, first.String(), second.String(), "rendering changed the plot")
	assert.Equal(t, 46.0, l.Y.Max)
}

// Each contender of a curve is drawn at its own offset around a goroutine
// count, the same side every time, and the offsets never reach halfway to
// the next count.
func TestCurveSpreadsContenders(t *testing.T) {
	const n = 8
	var shifts []float64
	for k := range n {
		shifts = append(shifts, spread(k, n))
	}
	for k := 1; k < n; k++ {
		assert.Greater(t, shifts[k], shifts[k-1], "contenders %d and %d share a place", k-1, k)
	}
	assert.InDelta(t, 1, spread(0, 1), 1e-12, "a lone contender stays on its count")
	assert.Less(t, math.Log2(shifts[n-1]), 0.5)
	assert.Greater(t, math.Log2(shifts[0]), -0.5)

	run := sample(t)
	p, err := Curve(run, Style{Impls: run.Impls}, "size=4/work=short", report.NsPerOp, "", "")
	require.NoError(t, err)
	assert.Less(t, p.X.Min, 2/1.1, "the first contender is drawn left of the smallest count")
}

// Drawn, the highest line of a plot stays below the top of the plotting
// area, which the vertical grid lines span: the peak does not sit on the
// frame.
func TestRenderLeavesHeadroom(t *testing.T) {
	c := new(recorder.Canvas)
	render(linePlot(t), draw.NewCanvas(c, Width, Height))
	var current color.Color
	peak, gridTop := math.Inf(-1), math.Inf(-1)
	for _, a := range c.Actions {
		switch a := a.(type) {
		case *recorder.SetColor:
			current = a.Color
		case *recorder.Stroke:
			top := math.Inf(-1)
			for _, comp := range a.Path {
				top = max(top, comp.Pos.Y.Points())
			}
			switch {
			case current == Color(0):
				peak = max(peak, top)
			case current == plotter.DefaultGridLineStyle.Color && len(a.Path) == 2 && a.Path[0].Pos.X == a.Path[1].Pos.X:
				gridTop = max(gridTop, top)
			}
		}
	}
	require.False(t, math.IsInf(peak, -1), "no line drawn in the series' color")
	require.False(t, math.IsInf(gridTop, -1), "no vertical grid line drawn")
	assert.Less(t, peak, gridTop-5, "the peak touches the top of the plotting area")
}
