package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem/benchmarks/semabench/report"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fill rewrites the blocks of the README and the pages, and refuses a
// block it does not know.
func TestFill(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	page := "intro\n<!-- semabench:begin run -->\nold figures\n<!-- semabench:end -->\noutro\n"
	require.NoError(t, os.WriteFile(filepath.Join(root, "README.md"), []byte(page), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "docs", "a.md"), []byte("no blocks\n"), 0o644))
	blocks := []report.Block{{Name: "run", Text: "new figures\n"}}
	var out bytes.Buffer
	require.NoError(t, fill(root, blocks, &out))
	got, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	assert.Equal(t, "intro\n<!-- semabench:begin run -->\nnew figures\n<!-- semabench:end -->\noutro\n", string(got))
	assert.Contains(t, out.String(), "README.md")
	assert.NotContains(t, out.String(), "a.md", "an unchanged page is not rewritten")

	require.NoError(t, os.WriteFile(filepath.Join(root, "docs", "b.md"), []byte("<!-- semabench:begin nosuch -->\nx\n<!-- semabench:end -->\n"), 0o644))
	assert.ErrorContains(t, fill(root, blocks, &out), "no block named nosuch")
}
