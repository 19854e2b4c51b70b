package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The committed reference report (tables, blocks, charts) is what its
// results.txt renders to: a results.txt replaced without make bench-render,
// or a change to the harness's rendering left unrendered, fails here.
func TestReferenceRendered(t *testing.T) {
	ref := filepath.Join("..", "..", "docs", "results", "reference")
	dir := t.TempDir()
	render := exec.Command("go", "run", "github.com/semacat/sem/benchmarks/semabench",
		"-command", "make bench-reference", "-blocks", "-from", filepath.Join(ref, "results.txt"), "-out", dir)
	out, err := render.CombinedOutput()
	require.NoError(t, err, "%s", out)
	charts, err := filepath.Glob(filepath.Join(dir, "*.svg"))
	require.NoError(t, err)
	require.NotEmpty(t, charts)
	for _, f := range append([]string{"blocks.md", "results.md"}, charts...) {
		f = filepath.Base(f)
		want, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(ref, f))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "docs/results/reference/%s is stale: run make bench-render", f)
	}
}
