package render

import (
	"fmt"
	"image/color"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/semacat/sem/lab/timeline"
)

// lanes is the plotter that draws the spans and marks of every lane.
type lanes struct {
	tl   timeline.Timeline
	unit unit
	// labels says whether to name the semaphore on each span, because the
	// timeline has more than one.
	labels bool
}

// Plot implements plot.Plotter.
func (l *lanes) Plot(c draw.Canvas, p *plot.Plot) {
	x, y := p.Transforms(&c)
	label := p.Y.Tick.Label
	label.Font.Size = vg.Points(7)
	label.Color = color.White
	label.XAlign, label.YAlign = draw.XLeft, draw.YCenter
	for i, line := range l.tl.Lanes {
		centre := float64(len(l.tl.Lanes) - 1 - i)
		l.spans(&c, line, centre, x, y)
		l.names(&c, label, line, centre, x, y)
		l.marks(&c, line, centre, x, y)
	}
}

// spans draws a lane's spans, holds first, so that a wait drawn over a
// hold (a philosopher holding one fork and waiting for the other) shows.
func (l *lanes) spans(c *draw.Canvas, line timeline.LaneLine, centre float64, x, y func(float64) vg.Length) {
	for _, kind := range []timeline.SpanKind{timeline.Holding, timeline.Waiting, timeline.Failed} {
		for _, s := range line.Spans {
			if s.Kind == kind {
				x0, x1 := x(l.unit.of(s.From)), x(l.unit.of(s.To))
				y0, y1 := y(centre-spanHalf[kind]), y(centre+spanHalf[kind])
				c.FillPolygon(spanColor[kind], []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
			}
		}
	}
}

// names writes on each hold what it holds, after every bar is drawn so
// that no bar covers a name. A hold that begins while another is open (a
// second fork) is named below the centre line, the first above.
func (l *lanes) names(c *draw.Canvas, sty draw.TextStyle, line timeline.LaneLine, centre float64, x, y func(float64) vg.Length) {
	var holdEnd time.Duration // of the holds named so far
	for _, s := range line.Spans {
		if s.Kind != timeline.Holding {
			continue
		}
		band := (holdHalf + waitHalf) / 2
		if s.From < holdEnd {
			band = -band
		}
		holdEnd = max(holdEnd, s.To)
		l.name(c, sty, s, vg.Point{X: x(l.unit.of(s.From)) + vg.Points(2), Y: y(centre + band)})
	}
}

// marks draws a lane's marks on its centre line, in markOrder.
func (l *lanes) marks(c *draw.Canvas, line timeline.LaneLine, centre float64, x, y func(float64) vg.Length) {
	for _, kind := range markOrder {
		for _, m := range line.Marks {
			if m.Kind == kind {
				c.DrawGlyph(markStyle[kind], vg.Point{X: x(l.unit.of(m.At)), Y: y(centre)})
			}
		}
	}
}

// name writes on a holding span what it holds: the semaphore's name when
// the timeline has several, and the permits when more than one.
func (l *lanes) name(c *draw.Canvas, sty draw.TextStyle, s timeline.Span, at vg.Point) {
	var text string
	switch {
	case l.labels && s.N > 1:
		text = fmt.Sprintf("%s ×%d", s.Sem, s.N)
	case l.labels:
		text = s.Sem
	case s.N > 1:
		text = fmt.Sprintf("×%d", s.N)
	default:
		return
	}
	c.FillText(sty, at, text)
}

// bar is the legend thumbnail of a span kind.
type bar struct {
	fill color.Color
	half float64
}

// Thumbnail implements plot.Thumbnailer.
func (b bar) Thumbnail(c *draw.Canvas) {
	mid := (c.Min.Y + c.Max.Y) / 2
	h := (c.Max.Y - c.Min.Y) * vg.Length(b.half)
	c.FillPolygon(b.fill, []vg.Point{
		{X: c.Min.X, Y: mid - h}, {X: c.Max.X, Y: mid - h},
		{X: c.Max.X, Y: mid + h}, {X: c.Min.X, Y: mid + h},
	})
}

// glyph is the legend thumbnail of a mark kind.
type glyph timeline.MarkKind

// Thumbnail implements plot.Thumbnailer.
func (g glyph) Thumbnail(c *draw.Canvas) {
	c.DrawGlyph(markStyle[timeline.MarkKind(g)], c.Center())
}
