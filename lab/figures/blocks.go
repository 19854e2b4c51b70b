package main

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/semacat/sem/benchmarks/semabench/report"
)

// The pages embed generated markdown between the markers semabench writes
// around each block of blocks.md; these find and refill those blocks.
var blockRE = regexp.MustCompile(`(?s)<!-- semabench:begin (\S+) -->\n(.*?)<!-- semabench:end -->`)

// blockFormat writes a block back: its name, then its text.
const blockFormat = "<!-- semabench:begin %s -->\n%s<!-- semabench:end -->"

// parseBlocks finds the blocks of a markdown document.
func parseBlocks(md string) []report.Block {
	var out []report.Block
	for _, m := range blockRE.FindAllStringSubmatch(md, -1) {
		out = append(out, report.Block{Name: m[1], Text: m[2]})
	}
	return out
}

// fillBlocks replaces the text of every block of md by the block of the
// same name in blocks; it reports the names it does not know.
func fillBlocks(md string, blocks []report.Block) (string, []string) {
	var unknown []string
	out := blockRE.ReplaceAllStringFunc(md, func(m string) string {
		name := blockRE.FindStringSubmatch(m)[1]
		i := slices.IndexFunc(blocks, func(b report.Block) bool { return b.Name == name })
		if i < 0 {
			unknown = append(unknown, name)
			return m
		}
		return fmt.Sprintf(blockFormat, name, blocks[i].Text)
	})
	return out, unknown
}
