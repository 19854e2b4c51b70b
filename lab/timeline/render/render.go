// Package render draws a timeline.Timeline as an SVG picture with
// gonum.org/v1/plot: one lane per goroutine, top to bottom in the order the
// lanes were first used; time runs left to right from the recorder's start.
//
// A holding span is a wide bar, a waiting span a narrow bar inside the lane
// (so that a lane holding one semaphore while waiting for another shows
// both), a wait that failed a narrow bar of its own colour. Marks sit on the
// lane's centre line: a wake-up that did not end the wait, a grant, a
// refusal, a release. The legend has a column of its own to the right of
// the plot, so that it hides no data and is never clipped. Colours are from
// Okabe and Ito's palette, which readers with a colour-vision deficiency
// tell apart.
//
// It lives in a module of its own so that the plotting dependencies never
// reach users of the semaphores.
package render

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"time"

	"codeberg.org/go-fonts/dejavu/dejavusans"
	"golang.org/x/image/font/opentype"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/semacat/sem/lab/timeline"
)

func init() {
	face, err := opentype.Parse(dejavusans.TTF)
	if err != nil {
		panic(fmt.Sprintf("render: parsing DejaVu Sans: %v", err))
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

// Colours of spans and marks.
var (
	holdColor  = color.RGBA{0x00, 0x72, 0xb2, 0xff} // blue
	waitColor  = color.RGBA{0xe6, 0x9f, 0x00, 0xff} // orange
	failColor  = color.RGBA{0xcc, 0x79, 0xa7, 0xff} // reddish purple
	wokeColor  = color.RGBA{0xd5, 0x5e, 0x00, 0xff} // vermillion
	grantColor = color.RGBA{0x00, 0x9e, 0x73, 0xff} // bluish green
	markColor  = color.Black
)

// Geometry, in lane units (a lane is 1 high) and points.
const (
	holdHalf  = 0.32 // half the height of a holding bar
	waitHalf  = 0.14 // half the height of a waiting or failed bar
	glyphSize = 3.5  // radius of a mark, in points
	laneInch  = 0.45 // height of a lane, in inches
	width     = 8 * vg.Inch
	legendGap = 10 // points between the plot and its legend
	margin    = 6  // points of blank around the picture
)

// spanColor is the fill of each kind of span.
var spanColor = map[timeline.SpanKind]color.Color{
	timeline.Holding: holdColor,
	timeline.Waiting: waitColor,
	timeline.Failed:  failColor,
}

// spanHalf is the half height of each kind of span.
var spanHalf = map[timeline.SpanKind]float64{
	timeline.Holding: holdHalf,
	timeline.Waiting: waitHalf,
	timeline.Failed:  waitHalf,
}

// markOrder is the order in which marks are drawn, so that a refusal is
// never hidden by the release that follows it at the same instant.
var markOrder = []timeline.MarkKind{timeline.Released, timeline.Granted, timeline.Woke, timeline.Refused}

// markStyle is the glyph of each kind of mark.
var markStyle = map[timeline.MarkKind]draw.GlyphStyle{
	timeline.Woke:     {Color: wokeColor, Radius: vg.Points(glyphSize), Shape: draw.CircleGlyph{}},
	timeline.Granted:  {Color: grantColor, Radius: vg.Points(glyphSize), Shape: draw.PyramidGlyph{}},
	timeline.Refused:  {Color: markColor, Radius: vg.Points(glyphSize + 1), Shape: draw.CrossGlyph{}},
	timeline.Released: {Color: markColor, Radius: vg.Points(glyphSize - 1), Shape: draw.BoxGlyph{}},
}

// Plot returns the timeline as a plot with the given title, and its legend
// to be drawn beside it (see SVG).
func Plot(tl timeline.Timeline, title string) (*plot.Plot, plot.Legend) {
	p := plot.New()
	p.Title.Text = title
	u := unitFor(tl.End)
	p.X.Label.Text = "time (" + u.name + ")"
	p.X.Min, p.X.Max = 0, u.of(tl.End)
	names := make([]string, len(tl.Lanes))
	for i, l := range tl.Lanes {
		names[len(names)-1-i] = l.Name // the first lane on top
	}
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.6, float64(len(names))-0.4
	grid := plotter.NewGrid()
	grid.Horizontal.Color = color.Transparent
	p.Add(grid, &lanes{tl: tl, unit: u, labels: len(sems(tl)) > 1})
	return p, legend()
}

// Size returns the width and height of the timeline's picture: its height
// grows with the number of lanes.
func Size(tl timeline.Timeline) (w, h vg.Length) {
	return width, vg.Length(float64(len(tl.Lanes))*laneInch+1.1) * vg.Inch
}

// Draw draws the timeline with the given title on c, inside a blank
// margin: the title across the whole width at the top, the legend in a
// column of its own on the right. The title is not centred over the plot,
// whose column may be narrower than a long title.
func Draw(c draw.Canvas, tl timeline.Timeline, title string) {
	m := vg.Points(margin)
	c = draw.Crop(c, m, -m, m, -m)
	p, leg := Plot(tl, title)
	ts := p.Title.TextStyle
	ts.XAlign, ts.YAlign = draw.XLeft, draw.YTop
	p.Title.Text = ""
	below := draw.Crop(c, 0, 0, 0, -(ts.Height(title) + ts.FontExtents().Descent + p.Title.Padding))
	r := leg.Rectangle(below)
	legendWidth := r.Max.X - r.Min.X + vg.Points(legendGap)
	p.Draw(draw.Crop(below, 0, -legendWidth, 0, 0))
	leg.Draw(draw.Crop(below, below.Max.X-below.Min.X-legendWidth+vg.Points(legendGap), 0, 0, -vg.Points(legendGap)))
	c.FillText(ts, vg.Point{X: c.Min.X, Y: c.Max.Y}, title)
}

// SVG writes the timeline as an SVG picture of [Size] with the given
// title. The output depends only on tl and title, so a recording made in a
// testing/synctest bubble always gives the same bytes.
func SVG(w io.Writer, tl timeline.Timeline, title string) error {
	canvas := vgsvg.New(Size(tl))
	Draw(draw.New(canvas), tl, title)
	var b bytes.Buffer
	if _, err := canvas.WriteTo(&b); err != nil {
		return fmt.Errorf("render: writing the SVG of %q: %w", title, err)
	}
	svg := bytes.ReplaceAll(b.Bytes(), []byte("font-family:DejaVu Sans;"), []byte(fontFamily))
	_, err := w.Write(svg)
	return err
}

// legend names every span and mark kind.
func legend() plot.Legend {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.Add("holding", bar{holdColor, holdHalf})
	l.Add("waiting", bar{waitColor, waitHalf})
	l.Add("wait failed", bar{failColor, waitHalf})
	l.Add("woke, slept again", glyph(timeline.Woke))
	l.Add("granted", glyph(timeline.Granted))
	l.Add("refused", glyph(timeline.Refused))
	l.Add("released", glyph(timeline.Released))
	return l
}

// sems returns the names of the semaphores on the timeline.
func sems(tl timeline.Timeline) map[string]bool {
	names := make(map[string]bool)
	for _, l := range tl.Lanes {
		for _, s := range l.Spans {
			names[s.Sem] = true
		}
	}
	return names
}

// unit is the time unit of the X axis.
type unit struct {
	name string
	size time.Duration
}

// of returns d in the unit.
func (u unit) of(d time.Duration) float64 { return float64(d) / float64(u.size) }

// unitFor picks the unit in which a timeline ending at end reads best.
func unitFor(end time.Duration) unit {
	switch {
	case end >= 2*time.Second:
		return unit{"s", time.Second}
	case end >= 2*time.Millisecond:
		return unit{"ms", time.Millisecond}
	default:
		return unit{"µs", time.Microsecond}
	}
}
