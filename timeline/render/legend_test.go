package render_test

import (
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"github.com/semacat/sem/timeline/render"
)

// textEnds draws the sample on a recording canvas of width w and returns
// where each text drawn ends on the X axis, measured with its font.
func textEnds(t *testing.T, w vg.Length) []vg.Length {
	t.Helper()
	_, h := render.Size(sample)
	c := new(recorder.Canvas)
	render.Draw(draw.NewCanvas(c, w, h), sample, "sample")
	var ends []vg.Length
	for _, a := range c.Actions {
		if txt, ok := a.(*recorder.FillString); ok {
			face := font.DefaultCache.Lookup(txt.Font, txt.Size)
			ends = append(ends, txt.Point.X+face.Width(txt.String))
		}
	}
	if len(ends) == 0 {
		t.Fatal("nothing was written")
	}
	return ends
}
