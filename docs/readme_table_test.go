package docs

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem"
	"github.com/semacat/sem/etcdsem"
	"github.com/semacat/sem/redissem"
)

// interfaceTable reads the rows of a table of constructors and optional
// interfaces: package, type, constructors, then yes or no for Resizer,
// Closer and Observer, each row as its cells joined by "|".
func interfaceTable(t *testing.T, lines []string) []string {
	t.Helper()
	var rows []string
	for _, line := range lines {
		var cells []string
		if strings.HasPrefix(line, "|") { // markdown
			for c := range strings.SplitSeq(strings.Trim(line, "| "), "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
		} else { // godoc: columns apart by two or more spaces
			cells = regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(strings.TrimPrefix(line, "//")), -1)
		}
		if len(cells) == 6 && (cells[3] == "yes" || cells[3] == "no") {
			rows = append(rows, strings.Join(cells, "|"))
		}
	}
	require.NotEmpty(t, rows, "no table of constructors and optional interfaces found")
	return rows
}

func fileLines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	return strings.Split(string(b), "\n")
}

// The README's table of constructors and optional interfaces is the one in
// sem's package doc (whose local rows the root module's tests check).
func TestReadmeInterfaceTableIsSemsTable(t *testing.T) {
	assert.Equal(t, interfaceTable(t, fileLines(t, "../sem.go")), interfaceTable(t, fileLines(t, "../README.md")))
}

// The distributed strategies' rows say what their types implement.
func TestDistributedRowsOfTheInterfaceTable(t *testing.T) {
	types := map[string]sem.Semaphore{"etcdsem": (*etcdsem.Semaphore)(nil), "redissem": (*redissem.Semaphore)(nil)}
	yes := map[bool]string{true: "yes", false: "no"}
	for _, row := range interfaceTable(t, fileLines(t, "../sem.go")) {
		cells := strings.Split(row, "|")
		s, ok := types[cells[0]]
		if !ok {
			continue
		}
		delete(types, cells[0])
		_, resizer := s.(sem.Resizer)
		_, closer := s.(sem.Closer)
		_, observer := s.(sem.Observer)
		assert.Equal(t, []string{yes[resizer], yes[closer], yes[observer]}, cells[3:], "%s's row", cells[0])
	}
	assert.Empty(t, types, "the table has no row for these")
}
