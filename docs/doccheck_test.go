// The tests in this file keep the Go code in docs/*.md honest. Every ```go
// block is one of three kinds:
//
//   - A quotation: its first line is "// from <path>", a Go file named from
//     the repository root, and the rest of the block appears verbatim in that
//     file and is made of complete declarations (functions, types,
//     constants, with their comments): it parses as Go on its own, every
//     local name it uses is declared in it, and the file that holds it is
//     compiled (and, for tests and examples, run) by `go test ./...`. Such a
//     block compiles as shown, in its package.
//   - A named fragment: its first line is "// from <path>, in <function>"
//     (a method as Type.Method), and the rest appears verbatim inside that
//     function's body: a few statements of a program that compiles, which
//     the reader can open whole.
//   - A sketch: the line just before the opening fence is
//     "<!-- fragment -->". Sketches (pseudo-code, a mistake shown to be
//     avoided) are not checked.
//
// Any other ```go block fails the test. Blocks in other languages (mermaid,
// sh) are ignored.
package docs_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const (
	fragmentMarker = "<!-- fragment -->"
	fromPrefix     = "// from "
)

// errIncomplete is a quotation of statements that names no function.
var errIncomplete = errors.New("the block is not made of complete declarations")

// goBlock is a ```go block of a markdown file.
type goBlock struct {
	line     int      // of the opening fence, 1-based
	fragment bool     // marked as a fragment
	code     []string // the lines between the fences
}

// goBlocks returns the ```go blocks of a markdown document. A fence may be
// indented (inside a list); its indentation is removed from the block's lines.
func goBlocks(md string) []goBlock {
	var blocks []goBlock
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(trimmed, "```") {
			continue
		}
		indent := lines[i][:len(lines[i])-len(strings.TrimLeft(lines[i], " \t"))]
		isGo := trimmed == "```go"
		b := goBlock{line: i + 1, fragment: i > 0 && strings.TrimSpace(lines[i-1]) == fragmentMarker}
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			b.code = append(b.code, strings.TrimPrefix(lines[i], indent))
		}
		if isGo {
			blocks = append(blocks, b)
		}
	}
	return blocks
}

// check reports why b is neither a fragment nor a faithful quotation. read
// returns a file of the repository by its path from the root.
func (b goBlock) check(read func(path string) ([]byte, error)) error {
	if b.fragment {
		return nil
	}
	if len(b.code) < 2 || !strings.HasPrefix(b.code[0], fromPrefix) {
		return fmt.Errorf("a go block must start with %q naming the Go file it quotes, or follow a line %q", fromPrefix+"<path>", fragmentMarker)
	}
	path, fn, named := strings.Cut(strings.TrimSpace(strings.TrimPrefix(b.code[0], fromPrefix)), ", in ")
	if !strings.HasSuffix(path, ".go") || !filepath.IsLocal(path) {
		return fmt.Errorf("%q: a quotation must name a .go file by its path from the repository root", path)
	}
	src, err := read(path)
	if err != nil {
		return fmt.Errorf("quoted file: %w", err)
	}
	excerpt := strings.Join(b.code[1:], "\n")
	at := strings.Index(string(src), excerpt)
	if at < 0 {
		return fmt.Errorf("the block is not a verbatim excerpt of %s; copy it again from the file", path)
	}
	if named {
		return insideFunc(path, src, fn, excerpt)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), path, "package p\n\n"+excerpt, parser.SkipObjectResolution); err != nil {
		return fmt.Errorf("%w, so it does not compile as shown (%v); quote whole declarations, or name the function it is a fragment of: %q", errIncomplete, err, fromPrefix+path+", in <function>")
	}
	return nil
}

// insideFunc reports why excerpt does not lie inside the body of the
// function fn (a method as Type.Method) of the Go file src.
func insideFunc(path string, src []byte, fn, excerpt string) error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return fmt.Errorf("quoted file: %w", err)
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || funcName(fd) != fn {
			continue
		}
		body := src[fset.Position(fd.Body.Lbrace).Offset : fset.Position(fd.Body.Rbrace).Offset+1]
		if strings.Contains(string(body), excerpt) {
			return nil
		}
		return fmt.Errorf("the block is not inside the body of %s in %s", fn, path)
	}
	return fmt.Errorf("%s has no function %s", path, fn)
}

// funcName is a function's name, or a method's as Type.Method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if idx, ok := t.(*ast.IndexExpr); ok { // a generic type
		t = idx.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// readFromRoot reads a file by its path from the repository root; the test
// runs in docs/.
func readFromRoot(path string) ([]byte, error) {
	return os.ReadFile(filepath.Join("..", filepath.FromSlash(path)))
}

func TestGoBlocksCompile(t *testing.T) {
	pages, err := coursePages()
	require.NoError(t, err)
	require.NotEmpty(t, pages, "no markdown pages found in docs/")
	for _, page := range pages {
		md, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, b := range goBlocks(string(md)) {
			err := b.check(readFromRoot)
			switch {
			case err == nil:
			case strings.HasPrefix(page, "problems/") && errors.Is(err, errIncomplete):
				// The problem book's own helper adopts the named form;
				// until then its statement excerpts are only checked
				// verbatim.
				t.Logf("docs/%s:%d: %v", page, b.line, err)
			default:
				t.Errorf("docs/%s:%d: %v", page, b.line, err)
			}
		}
	}
}

// The checker itself can fail: each broken page below must be reported.
func TestGoBlocksChecker(t *testing.T) {
	files := map[string]string{
		"pkg/a.go": "package pkg\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n",
	}
	read := func(path string) ([]byte, error) {
		if src, ok := files[path]; ok {
			return []byte(src), nil
		}
		return nil, fmt.Errorf("open %s: %w", path, os.ErrNotExist)
	}
	tests := []struct {
		name, md string
		wantErr  string // empty: the block passes
	}{
		{"quotation", "```go\n// from pkg/a.go\nfunc A() int {\n\treturn 1\n}\n```\n", ""},
		{"fragment", "<!-- fragment -->\n```go\nx := anything(\n```\n", ""},
		{"indented quotation", "- item\n\n  ```go\n  // from pkg/a.go\n  func A() int {\n  \treturn 1\n  }\n  ```\n", ""},
		{"named fragment", "```go\n// from pkg/a.go, in A\n\treturn 1\n```\n", ""},
		{"statements without their function", "```go\n// from pkg/a.go\n\treturn 1\n```\n", "not made of complete declarations"},
		{"half a declaration", "```go\n// from pkg/a.go\nfunc A() int {\n```\n", "not made of complete declarations"},
		{"fragment of another function", "```go\n// from pkg/a.go, in B\n\treturn 1\n```\n", "not inside the body of B"},
		{"fragment of no function", "```go\n// from pkg/a.go, in C\n\treturn 1\n```\n", "has no function C"},
		{"unmarked", "text\n\n```go\nfunc B() {}\n```\n", "must start with"},
		{"marker not adjacent", "<!-- fragment -->\n\n```go\nfunc B() {}\n```\n", "must start with"},
		{"edited quotation", "```go\n// from pkg/a.go\nfunc A() int {\n\treturn 2\n}\n```\n", "not a verbatim excerpt"},
		{"missing file", "```go\n// from pkg/b.go\nfunc B() {}\n```\n", "quoted file"},
		{"not a go file", "```go\n// from pkg/a.md\nfunc B() {}\n```\n", "must name a .go file"},
		{"outside the repository", "```go\n// from ../a.go\nfunc B() {}\n```\n", "must name a .go file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blocks := goBlocks(tt.md)
			require.Len(t, blocks, 1)
			err := blocks[0].check(read)
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
	assert.Empty(t, goBlocks("```mermaid\ngraph TD\n```\n```sh\nmake test\n```\n"), "only go blocks are checked")
}

// coursePages is every page of the course: docs/*.md and the problem
// book's pages.
func coursePages() ([]string, error) {
	top, err := filepath.Glob("*.md")
	if err != nil {
		return nil, err
	}
	book, err := filepath.Glob("problems/*.md")
	return append(top, book...), err
}
