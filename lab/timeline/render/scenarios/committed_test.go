package scenarios_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem/lab/timeline"
	"github.com/semacat/sem/lab/timeline/render"
	"github.com/semacat/sem/lab/timeline/render/scenarios"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var (
	update   = flag.Bool("update", false, "write the committed pictures instead of comparing them (make timelines)")
	out      = flag.String("out", "", "TestRender writes every scenario's picture for -strategy into this directory")
	strategy = flag.String("strategy", "", "the strategy TestRender draws (default: every one)")
)

// dir holds the committed pictures.
const dir = "../../../../docs/timelines"

// committed are the pictures the docs show, as scenario and strategy.
var committed = [][2]string{
	{"herd", "condsem"},
	{"herd", "condsem-fair"},
	{"herd", "weighted"},
	{"barging", "spinsem"},
	{"barging", "weighted"},
	{"lost-wakeup", "spinsem"},
	{"canceled-head", "chansem"},
	{"canceled-head", "condsem"},
	{"canceled-head", "weighted"},
	{"large", "condsem"},
	{"large", "weighted"},
	{"large", "spinsem"},
	{"philosophers-deadlock", "chansem"},
	{"philosophers-ordered", "chansem"},
}

// run plays the scenario against the strategy in a synctest bubble.
func run(t *testing.T, scenario, strategy string) timeline.Timeline {
	t.Helper()
	sc, st, ok := scenarios.Lookup(scenario, strategy)
	require.True(t, ok, "no scenario %q or strategy %q", scenario, strategy)
	var tl timeline.Timeline
	synctest.Test(t, func(*testing.T) { tl = sc.Run(st) })
	return tl
}

// picture returns the SVG of the scenario against the strategy.
func picture(t *testing.T, scenario, strategy string) []byte {
	t.Helper()
	sc, _, _ := scenarios.Lookup(scenario, strategy)
	var b bytes.Buffer
	require.NoError(t, render.SVG(&b, run(t, scenario, strategy), strategy+": "+sc.Title))
	return b.Bytes()
}

// fileName is the picture's file name.
func fileName(scenario, strategy string) string { return scenario + "-" + strategy + ".svg" }

// The committed pictures are what the scenarios draw now: a change to a
// strategy, a scenario or the drawing that changes a picture fails here
// until `make timelines` has drawn them again.
func TestCommittedPicturesAreCurrent(t *testing.T) {
	for _, c := range committed {
		name := fileName(c[0], c[1])
		t.Run(name, func(t *testing.T) {
			got := picture(t, c[0], c[1])
			path := filepath.Join(dir, name)
			if *update {
				require.NoError(t, os.MkdirAll(dir, 0o755))
				require.NoError(t, os.WriteFile(path, got, 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run `make timelines` to draw it")
			require.True(t, bytes.Equal(want, got), "%s is stale: run `make timelines` and commit the result", path)
		})
	}
}

// TestRender draws every scenario for any strategy:
//
//	go test ./scenarios -run TestRender -args -out /tmp/pictures -strategy spinsem
func TestRender(t *testing.T) {
	if *out == "" {
		t.Skip("no -out directory")
	}
	require.NoError(t, os.MkdirAll(*out, 0o755))
	for _, st := range scenarios.Strategies {
		if *strategy != "" && st.Name != *strategy {
			continue
		}
		for _, sc := range scenarios.All {
			name := fileName(sc.Name, st.Name)
			t.Run(name, func(t *testing.T) {
				require.NoError(t, os.WriteFile(filepath.Join(*out, name), picture(t, sc.Name, st.Name), 0o644))
			})
		}
	}
}
