package chart

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	vgdraw "gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"github.com/semacat/sem/benchmarks/semabench/report"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// sample is the small run of the testdata.
func sample(t *testing.T) *report.Run {
	return parseRun(t, "../testdata/results.txt")
}

// parseRun parses the results file at path.
func parseRun(t *testing.T, path string) *report.Run {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	run, err := report.Parse(f, filepath.Base(path))
	require.NoError(t, err)
	return run
}

// svgText renders p and returns every text element of the well-formed SVG.
func svgText(t *testing.T, p *plot.Plot) []string {
	t.Helper()
	require.NotNil(t, p)
	var b bytes.Buffer
	require.NoError(t, WriteSVG(&b, p))
	d := xml.NewDecoder(&b)
	var texts []string
	root := ""
	inText := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "the SVG must be well-formed XML")
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
			inText = tok.Name.Local == "text"
		case xml.CharData:
			if inText {
				texts = append(texts, string(tok))
			}
		case xml.EndElement:
			inText = false
		}
	}
	assert.Equal(t, "svg", root)
	return texts
}

func TestCurve(t *testing.T) {
	run := sample(t)
	st := Style{Impls: run.Impls, Refs: map[string]bool{"xsync": true}}
	p, err := Curve(run, st, "size=4/work=short", report.NsPerOp, "Cost against goroutines", "ns/op")
	require.NoError(t, err)
	texts := svgText(t, p)
	for _, want := range []string{"Cost against goroutines", "goroutines", "chansem", "xsync", "chan", "2", "64", "100ns"} {
		assert.Contains(t, texts, want)
	}
	assert.NotContains(t, texts, "mutex", "mutex did not run these scenarios")

	p, err = Curve(run, st, "size=1/work=0", report.NsPerOp, "", "")
	require.NoError(t, err)
	assert.Nil(t, p, "no curve from fewer than two points")

	p, err = Curve(run, st, "size=4/work=short", "no-such-unit", "", "")
	require.NoError(t, err)
	assert.Nil(t, p, "no curve without a value (the latency pass did not run)")
}

func TestPercentiles(t *testing.T) {
	run := sample(t)
	p, err := Percentiles(run, "uncontended/size=1")
	require.NoError(t, err)
	texts := svgText(t, p)
	for _, want := range []string{"p50", "p99", "max", "chansem", "mutex"} {
		assert.Contains(t, texts, want)
	}
	p, err = Percentiles(run, "no/such=scenario")
	require.NoError(t, err)
	assert.Nil(t, p)
}

func TestStarvation(t *testing.T) {
	run := sample(t)
	p, err := Starvation(run, "starvation/goroutines=16/size=4")
	require.NoError(t, err)
	texts := svgText(t, p)
	for _, want := range []string{"Acquire(size): large request", "chansem", "xsync", "worst wait (log)", "1ms", "10ms"} {
		assert.Contains(t, texts, want)
	}
	assert.NotContains(t, texts, "chan")
	p, err = Starvation(run, "uncontended/size=1")
	require.NoError(t, err)
	assert.Nil(t, p)
}

func TestTicks(t *testing.T) {
	var labels []string
	for _, tk := range (powersOfTwo{}).Ticks(2, 512) {
		labels = append(labels, tk.Label)
	}
	assert.Equal(t, []string{"2", "4", "8", "16", "32", "64", "128", "256", "512"}, labels)
	labels = nil
	for _, tk := range (nsTicks{}).Ticks(50, 2000) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	assert.Equal(t, []string{"10ns", "100ns", "1µs", "10µs"}, labels)
}

// Every chart of the synthetic run renders as PNG too; with
// SEMABENCH_PNG set to a directory, the PNGs are kept there to look at.
func TestRenderReferencePNG(t *testing.T) {
	run := syntheticRun(t)
	dir := os.Getenv("SEMABENCH_PNG")
	if dir == "" {
		dir = t.TempDir()
	}
	st := Style{Impls: run.Impls, Refs: map[string]bool{"xsync": true, "chan": true, "mutex": true}}
	plots := map[string]func() (*plot.Plot, error){
		"curve": func() (*plot.Plot, error) {
			return Curve(run, st, "size=4/work=yield", report.NsPerOp, "yield", "ns/op")
		},
		"percentiles": func() (*plot.Plot, error) { return Percentiles(run, "goroutines=16/size=1/work=0") },
		"starvation":  func() (*plot.Plot, error) { return Starvation(run, "starvation/goroutines=16/size=4") },
	}
	for name, draw := range plots {
		p, err := draw()
		require.NoError(t, err, name)
		require.NotNil(t, p, name)
		var b bytes.Buffer
		require.NoError(t, writePNG(&b, p), name)
		assert.True(t, bytes.HasPrefix(b.Bytes(), []byte("\x89PNG")), name)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".png"), b.Bytes(), 0o644))
	}
}

// Every text of the synthetic run's charts is drawn inside the chart, as
// measured with the layout font: none starts left of the edge or ends
// beyond the width, and the SVG asks for that font first.
func TestTextNotClipped(t *testing.T) {
	run := syntheticRun(t)
	st := Style{Impls: run.Impls, Refs: map[string]bool{"xsync": true, "chan": true, "mutex": true}}
	plots := map[string]func() (*plot.Plot, error){
		"curve": func() (*plot.Plot, error) {
			return Curve(run, st, "size=1/work=0", report.NsPerOp, "Size 1, no work while holding", "ns/op")
		},
		"percentiles": func() (*plot.Plot, error) { return Percentiles(run, "goroutines=16/size=1/work=0") },
		"starvation":  func() (*plot.Plot, error) { return Starvation(run, "starvation/goroutines=16/size=4") },
	}
	for name, draw := range plots {
		p, err := draw()
		require.NoError(t, err, name)
		c := new(recorder.Canvas)
		render(p, vgdraw.NewCanvas(c, Width, Height))
		texts := 0
		for _, a := range c.Actions {
			if txt, ok := a.(*recorder.FillString); ok {
				texts++
				face := font.DefaultCache.Lookup(txt.Font, txt.Size)
				assert.GreaterOrEqual(t, txt.Point.X, vg.Length(0), "%s: %q starts outside the chart", name, txt.String)
				assert.LessOrEqual(t, txt.Point.X+face.Width(txt.String), Width, "%s: %q ends outside the chart", name, txt.String)
			}
		}
		assert.Positive(t, texts, name)
		var b bytes.Buffer
		require.NoError(t, WriteSVG(&b, p), name)
		assert.True(t, strings.Contains(b.String(), fontFamily), "%s: the SVG does not ask for the layout font first", name)
		assert.False(t, strings.Contains(b.String(), "font-family:DejaVu Sans;"), "%s: the SVG names the layout font alone", name)
	}
}
