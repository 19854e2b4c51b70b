package render_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem/timeline"
	"github.com/semacat/sem/timeline/render"
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

// The legend is drawn inside the picture: no text, the longest legend
// entry included, ends beyond its width.
func TestLegendNotClipped(t *testing.T) {
	w, _ := render.Size(sample)
	for _, end := range textEnds(t, w) {
		assert.LessOrEqual(t, end, w, "a text ends outside the picture")
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
