package render_test

import (
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"github.com/semacat/sem/lab/timeline/render"
)

// longTitle is as long as the longest title of the scenarios.
const longTitle = "weighted: a request for every permit among small ones that keep coming"

// textSpans draws the sample with a long title on a recording canvas of
// width w and returns where each text drawn starts and ends on the X axis,
// measured with its font.
func textSpans(t *testing.T, w vg.Length) (starts, ends []vg.Length) {
	t.Helper()
	_, h := render.Size(sample)
	c := new(recorder.Canvas)
	render.Draw(draw.NewCanvas(c, w, h), sample, longTitle)
	for _, a := range c.Actions {
		if txt, ok := a.(*recorder.FillString); ok {
			face := font.DefaultCache.Lookup(txt.Font, txt.Size)
			starts = append(starts, txt.Point.X)
			ends = append(ends, txt.Point.X+face.Width(txt.String))
		}
	}
	if len(ends) == 0 {
		t.Fatal("nothing was written")
	}
	return starts, ends
}
