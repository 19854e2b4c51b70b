package render_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"gonum.org/v1/plot/vg"

	"github.com/semacat/sem/lab/timeline"
	"github.com/semacat/sem/lab/timeline/render"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// sample has two lanes: one holds, the other waits and is granted.
var sample = timeline.Timeline{
	End: 2 * time.Second,
	Lanes: []timeline.LaneLine{
		{Name: "holder", Spans: []timeline.Span{{Kind: timeline.Holding, Sem: "s", N: 2, From: 0, To: time.Second}},
			Marks: []timeline.Mark{{Kind: timeline.Released, Sem: "s", N: 2, At: time.Second}}},
		{Name: "waiter", Spans: []timeline.Span{
			{Kind: timeline.Waiting, Sem: "s", N: 1, From: 0, To: time.Second},
			{Kind: timeline.Holding, Sem: "s", N: 1, From: time.Second, To: 2 * time.Second},
		}, Marks: []timeline.Mark{{Kind: timeline.Granted, Sem: "s", N: 1, At: time.Second}}},
	},
}

// The picture names every lane and every legend entry, labels a hold of
// several permits, uses seconds for a timeline of seconds, and is the same
// bytes each time.
func TestSVG(t *testing.T) {
	var a, b bytes.Buffer
	require.NoError(t, render.SVG(&a, sample, "sample"))
	require.NoError(t, render.SVG(&b, sample, "sample"))
	assert.Equal(t, a.Bytes(), b.Bytes())
	svg := a.String()
	for _, text := range []string{">sample<", ">holder<", ">waiter<", ">×2<", ">time (s)<",
		">holding<", ">waiting<", ">wait failed<", ">woke, slept again<", ">granted<", ">refused<", ">released<"} {
		assert.Contains(t, svg, text)
	}
	assert.Equal(t, 1, strings.Count(svg, "×"), "only the hold of 2 is labelled")
}

// Every text is drawn inside the picture, the title and the longest legend
// entry and lane label included: none starts left of the edge or ends
// beyond the width.
func TestTextNotClipped(t *testing.T) {
	w, _ := render.Size(sample)
	starts, ends := textSpans(t, w)
	for _, start := range starts {
		assert.GreaterOrEqual(t, start, vg.Length(0), "a text starts outside the picture")
	}
	for _, end := range ends {
		assert.LessOrEqual(t, end, w, "a text ends outside the picture")
	}
}

// The font the layout measured is the one the SVG asks for first: a viewer
// that has it draws the text exactly as measured, and the fonts named after
// it are narrower.
func TestSVGAsksForTheLayoutFont(t *testing.T) {
	var b strings.Builder
	require.NoError(t, render.SVG(&b, sample, "sample"))
	families := regexp.MustCompile(`font-family:([^;]*);`).FindAllStringSubmatch(b.String(), -1)
	require.NotEmpty(t, families)
	for _, f := range families {
		assert.True(t, strings.HasPrefix(f[1], "'DejaVu Sans',"), "font-family: %s", f[1])
	}
}

// A picture grows with its lanes.
func TestSizeGrowsWithLanes(t *testing.T) {
	_, two := render.Size(sample)
	more := sample
	more.Lanes = append(append([]timeline.LaneLine{}, sample.Lanes...), timeline.LaneLine{Name: "third"})
	_, three := render.Size(more)
	assert.Greater(t, three, two)
}
