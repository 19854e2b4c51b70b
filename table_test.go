package sem_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/condsem"
	"github.com/semacat/sem/spinsem"
	"github.com/semacat/sem/weighted"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// localTypes holds, for each local strategy's type in the package doc's
// table of constructors and optional interfaces, a value made by each of
// its constructors, by name.
var localTypes = map[string]map[string]sem.Semaphore{
	"chansem Semaphore":  {"New": chansem.New(1), "NewAvailable": chansem.NewAvailable(1, 1)},
	"condsem Semaphore":  {"New": condsem.New(1), "NewAvailable": condsem.NewAvailable(1, 1)},
	"condsem Fair":       {"NewFair": condsem.NewFair(1), "NewFairAvailable": condsem.NewFairAvailable(1, 1)},
	"weighted Semaphore": {"New": weighted.New(1), "NewAvailable": weighted.NewAvailable(1, 1)},
	"spinsem Semaphore":  {"New": spinsem.New(1), "NewAvailable": spinsem.NewAvailable(1, 1)},
	"adaptive Limiter":   {"New": adaptive.New(weighted.New(1), 1, &adaptive.AIMD{})},
}

// tableRow is one row of the table in sem's package doc.
type tableRow struct {
	constructors []string
	implements   map[string]bool // by interface name
}

// docTable parses the table under "Constructors and optional interfaces" in
// sem's package doc, keyed by package and type.
func docTable(t *testing.T) map[string]tableRow {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "sem.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	pkg, err := doc.NewFromFiles(fset, []*ast.File{f}, "github.com/semacat/sem")
	require.NoError(t, err)
	_, table, ok := strings.Cut(pkg.Doc, "# Constructors and optional interfaces\n")
	require.True(t, ok, "sem's package doc has no section on constructors and optional interfaces")
	var header []string
	rows := map[string]tableRow{}
	for line := range strings.Lines(table) {
		if !strings.HasPrefix(line, "\t") {
			if len(rows) > 0 {
				break // the end of the table
			}
			continue
		}
		cols := strings.Split(strings.TrimSpace(line), "  ")
		cols = deleteEmpty(cols)
		if header == nil {
			header = cols
			continue
		}
		require.Len(t, cols, len(header), "row %q", line)
		row := tableRow{implements: map[string]bool{}}
		row.constructors = constructorName.FindAllString(cols[2], -1)
		for i, name := range header[3:] {
			row.implements[name] = cols[3+i] == "yes"
		}
		rows[cols[0]+" "+cols[1]] = row
	}
	require.Equal(t, []string{"package", "type", "constructors", "Resizer", "Closer", "Observer"}, header)
	return rows
}

// constructorName matches a constructor's name in the table's constructors
// column, without the arguments some rows show: New(s, initial, alg).
var constructorName = regexp.MustCompile(`\bNew\w*`)

func deleteEmpty(cols []string) []string {
	var out []string
	for _, c := range cols {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// The table of constructors and optional interfaces in sem's package doc is
// true of every local strategy.
func TestDocTable(t *testing.T) {
	table := docTable(t)
	for name, ctors := range localTypes {
		t.Run(name, func(t *testing.T) {
			row, ok := table[name]
			require.True(t, ok, "the table has no row for %s", name)
			var names []string
			for c := range ctors {
				names = append(names, c)
			}
			assert.ElementsMatch(t, names, row.constructors, "constructors")
			for ctor, s := range ctors {
				_, resizer := s.(sem.Resizer)
				_, closer := s.(sem.Closer)
				_, observer := s.(sem.Observer)
				assert.Equal(t, row.implements["Resizer"], resizer, "%s from %s: Resizer", name, ctor)
				assert.Equal(t, row.implements["Closer"], closer, "%s from %s: Closer", name, ctor)
				assert.Equal(t, row.implements["Observer"], observer, "%s from %s: Observer", name, ctor)
			}
		})
	}
	for _, distributed := range []string{"etcdsem Semaphore", "redissem Semaphore"} {
		assert.Contains(t, table, distributed, "the table lists the distributed strategies too")
	}
}

// Every example shown on the package pages of sem and the local strategies
// compiles when a user copies it: go/doc makes it a runnable program (its
// Play field), which it cannot do for an example that calls a helper
// declared in another file; and an example shown as its function body
// alone needs nothing else from its file, while one that needs helpers is
// shown as its whole file (the only example in a file without tests).
func TestExamplesStandAlone(t *testing.T) {
	for _, dir := range []string{".", "chansem", "condsem", "weighted", "spinsem", "adaptive", "group", "semhttp", "semexpvar"} {
		fset := token.NewFileSet()
		names, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		require.NoError(t, err)
		var files []*ast.File
		for _, name := range names {
			f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
			require.NoError(t, err)
			files = append(files, f)
		}
		examples := doc.Examples(files...)
		require.NotEmpty(t, examples, dir)
		for _, ex := range examples {
			if !assert.NotNil(t, ex.Play, "%s: Example%s does not stand alone", dir, ex.Name) {
				continue
			}
			if _, whole := ex.Code.(*ast.File); !whole {
				assert.Equal(t, []string{"main"}, declared(ex.Play),
					"%s: Example%s, shown without its file, needs the file's other declarations", dir, ex.Name)
			}
		}
	}
}

// declared returns the names of a file's top-level declarations other than
// its imports.
func declared(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			names = append(names, d.Name.Name)
		case *ast.GenDecl:
			if d.Tok != token.IMPORT {
				names = append(names, d.Tok.String())
			}
		}
	}
	return names
}
