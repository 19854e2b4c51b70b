// Command figures fills the generated blocks of the repository's README.md
// and docs/*.md with the figures of a benchmark run: `make bench-reference`
// and `make bench-render` call it on the committed reference run, so that
// no figure on a page is typed by hand. It is development code, never
// released: users of semabench get blocks.md and embed what they like.
//
// Usage, from the repository root:
//
//	go run ./lab/figures -blocks docs/results/reference/blocks.md -root .
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/semacat/sem/benchmarks/semabench/report"
)

func main() {
	blocksFile := flag.String("blocks", "docs/results/reference/blocks.md", "the blocks.md of the run to copy figures from")
	root := flag.String("root", ".", "the repository's root folder")
	flag.Parse()
	md, err := os.ReadFile(*blocksFile)
	if err == nil {
		err = fill(*root, parseBlocks(string(md)), os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "figures:", err)
		os.Exit(1)
	}
}

// fill rewrites the generated blocks of root's README.md and docs/*.md.
func fill(root string, blocks []report.Block, stdout io.Writer) error {
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return err
	}
	for _, page := range append([]string{filepath.Join(root, "README.md")}, pages...) {
		md, err := os.ReadFile(page)
		if err != nil {
			return err
		}
		filled, unknown := fillBlocks(string(md), blocks)
		if len(unknown) > 0 {
			return fmt.Errorf("%s: no block named %s; the blocks are in blocks.md", page, strings.Join(unknown, ", "))
		}
		if filled == string(md) {
			continue
		}
		if err := os.WriteFile(page, []byte(filled), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "filled the blocks of %s\n", page)
	}
	return nil
}
