package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A page that cites a test as its evidence ("`TestEtcd/kill-leader` shows
// it") must cite one that exists: a test renamed or deleted leaves a claim
// without its proof. The tests below check every `TestX`, `ExampleX` and
// `BenchmarkX` written in backquotes in README.md and docs/*.md against the
// functions of every _test.go file in the repository, nested modules
// included.

// citedName matches a test, example or benchmark named in backquotes; a
// subtest path after the name (TestEtcd/kill-leader) is left out.
var citedName = regexp.MustCompile("`((?:Test|Example|Benchmark)[A-Z_][A-Za-z0-9_]*)")

// testFunc matches the declaration of a test, example or benchmark.
var testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Example|Benchmark)[A-Za-z0-9_]*)\(`)

// uncited returns, for each page, the names it cites that declared lacks,
// as "page: name".
func uncited(pages map[string]string, declared map[string]bool) []string {
	var missing []string
	for page, text := range pages {
		for _, m := range citedName.FindAllStringSubmatch(text, -1) {
			if !declared[m[1]] {
				missing = append(missing, page+": "+m[1])
			}
		}
	}
	slices.Sort(missing)
	return slices.Compact(missing)
}

// declaredTests returns the names of the tests, examples and benchmarks
// declared in the _test.go files below root.
func declaredTests(t *testing.T, root string) map[string]bool {
	declared := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range testFunc.FindAllStringSubmatch(string(src), -1) {
			declared[m[1]] = true
		}
		return nil
	})
	require.NoError(t, err)
	return declared
}

func TestCitedTestsExist(t *testing.T) {
	paths, err := coursePages()
	require.NoError(t, err)
	paths = append(paths, filepath.Join("..", "README.md"))
	pages := map[string]string{}
	for _, p := range paths {
		text, err := os.ReadFile(p)
		require.NoError(t, err)
		pages[filepath.ToSlash(p)] = string(text)
	}
	declared := declaredTests(t, "..")
	require.True(t, declared["TestCitedTestsExist"], "the walk missed this very file")
	for _, m := range uncited(pages, declared) {
		t.Errorf("%s is cited as evidence but no _test.go file declares it; cite the test that now shows the claim", m)
	}
}

// The checker itself can fail: a cited name nobody declares is reported,
// once per page, and a subtest path is checked by its test's name.
func TestCitedTestsChecker(t *testing.T) {
	declared := map[string]bool{"TestEtcd": true, "ExamplePermit": true}
	pages := map[string]string{
		"a.md": "`TestEtcd/kill-leader` and `ExamplePermit` and `TestGone`, again `TestGone`",
		"b.md": "`BenchmarkGone`; plain TestUnquoted and `Example` functions are prose",
	}
	assert.Equal(t, []string{"a.md: TestGone", "b.md: BenchmarkGone"}, uncited(pages, declared))
}
