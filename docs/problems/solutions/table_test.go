package solutions_test

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/docs/problems/check"
)

// The checkers' table: how often each checker accepts each answer, right
// and wrong, over many invocations. CHECK_TABLE=invocations.md makes it:
//
//	cd docs && CHECK_TABLE=1 go test -count=1 -run . ./problems/solutions
//
// runs every answer's checker tableInvocations times, each invocation a
// fresh Verify (a new run, new semaphores, a new scheduler, as a student's
// go test makes), and writes the rows to tableFile; solutions.md quotes
// them, and TestTableInDocs holds it to them.
const (
	tableFile        = "../checkers.md"
	tableInvocations = 100
)

// A row of the table.
type tableRow struct {
	test, answer string
	right        bool
	accepted     int // invocations whose verdict was "accepted"
	verdicts     int // distinct verdicts among the invocations
}

var table struct {
	sync.Mutex
	rows []tableRow
}

// judgeAll is check.Judge, and with CHECK_TABLE set it also tallies each
// answer's verdicts over tableInvocations invocations for the table.
func judgeAll[S any](t *testing.T, p check.Problem[S], rights []check.Right[S], wrongs ...check.Wrong[S]) {
	t.Helper()
	check.Judge(t, p, rights, wrongs...)
	if os.Getenv("CHECK_TABLE") == "" {
		return
	}
	for _, r := range rights {
		tally(t, p, r.Name, true, r.Solution)
	}
	for _, w := range wrongs {
		tally(t, p, w.Name, false, w.Solution)
	}
}

func tally[S any](t *testing.T, p check.Problem[S], name string, right bool, solution S) {
	verdicts := map[string]bool{}
	accepted := 0
	for range tableInvocations {
		err := p.Verify(t, solution)
		if err == nil {
			accepted++
			verdicts[""] = true
			continue
		}
		verdicts[err.Error()] = true
	}
	table.Lock()
	defer table.Unlock()
	table.rows = append(table.rows, tableRow{t.Name(), name, right, accepted, len(verdicts)})
}

// problemNumbers maps each checker test to its problem's number.
var problemNumbers = map[string]int{
	"TestSignal": 1, "TestRendezvous": 2, "TestMutex": 3, "TestMultiplex": 4,
	"TestBarrier": 5, "TestReusableBarrier": 6, "TestQueue": 7, "TestLightswitch": 8,
	"TestProducerConsumer": 9, "TestReadersWriters": 10, "TestWriterPriority": 11,
	"TestNoStarveMutex": 12, "TestDiningPhilosophers": 13, "TestH2O": 14,
	"TestBarbershop": 15, "TestDiningSavages": 16, "TestCigaretteSmokers": 17,
	"TestRiverCrossing": 18, "TestSantaClaus": 19, "TestSearchInsertDelete": 20,
	"TestUnisexBathroom": 21, "TestSushiBar": 22, "TestRollerCoaster": 23, "TestSenateBus": 24,
	"TestChildCare": 25, "TestDiningHall": 26, "TestMultiCarCoaster": 27, "TestBaboonCrossing": 28,
	"TestHilzerBarbershop": 29, "TestRoomParty": 30,
	"TestFaneuilHall": 31,
}

// markdown formats the rows as the table's lines, by problem number.
func markdown(rows []tableRow) []string {
	slices.SortStableFunc(rows, func(a, b tableRow) int { return problemNumbers[a.test] - problemNumbers[b.test] })
	lines := []string{
		"| # | checker test | answer | kind | verdict, in " + fmt.Sprint(tableInvocations) + " invocations | verdicts alike |",
		"|---|---|---|---|---|---|",
	}
	for _, r := range rows {
		kind, verdict := "wrong", fmt.Sprintf("rejected %d of %d", tableInvocations-r.accepted, tableInvocations)
		if r.right {
			kind, verdict = "right", fmt.Sprintf("accepted %d of %d", r.accepted, tableInvocations)
		}
		alike := "yes"
		if r.verdicts > 1 {
			alike = fmt.Sprintf("no: %d different", r.verdicts)
		}
		lines = append(lines, fmt.Sprintf("| %d | `%s` | %s | %s | %s | %s |", problemNumbers[r.test], r.test, r.answer, kind, verdict, alike))
	}
	return lines
}

// writeTable writes the tallied table to tableFile, once every test has run.
func writeTable() error {
	if os.Getenv("CHECK_TABLE") == "" || len(table.rows) == 0 {
		return nil
	}
	lines := markdown(table.rows)
	if err := quoteTable("../solutions.md", lines); err != nil {
		return err
	}
	head := fmt.Sprintf("<!-- written by CHECK_TABLE=1 go test ./problems/solutions (GOMAXPROCS=%d, %s); do not edit -->", runtime.GOMAXPROCS(0), runtime.Version())
	return os.WriteFile(tableFile, []byte(strings.Join(append([]string{head, ""}, lines...), "\n")+"\n"), 0o644)
}

// quoteTable replaces the table of verdicts in the page at path, or the
// line TABLE, with lines.
func quoteTable(path string, lines []string) error {
	page, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var out []string
	in := false
	for line := range strings.Lines(string(page)) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "TABLE" || strings.HasPrefix(line, "| # | checker test | answer |"):
			in = true
			out = append(out, lines...)
		case in && strings.HasPrefix(line, "|"):
		default:
			in = false
			out = append(out, line)
		}
	}
	return os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o644)
}

// The table in solutions.md is the one in the results file, row for row.
func TestTableInDocs(t *testing.T) {
	if os.Getenv("CHECK_TABLE") != "" {
		t.Skip("the table is being written")
	}
	results := tableLines(t, tableFile)
	require.Greater(t, len(results), 2, "no table in %s", tableFile)
	quoted := tableLines(t, "../solutions.md")
	for i, line := range results {
		require.Less(t, i, len(quoted), "solutions.md's table stops before %q of %s: copy it again", line, tableFile)
		require.Equal(t, line, quoted[i], "solutions.md's table differs from %s's: copy it again", tableFile)
	}
	require.Len(t, quoted, len(results), "solutions.md's table has rows %s lacks", tableFile)
	for test, n := range problemNumbers {
		require.True(t, slices.ContainsFunc(results, func(line string) bool {
			return strings.HasPrefix(line, fmt.Sprintf("| %d | `%s` |", n, test))
		}), "%s has no row for %s: write it again with CHECK_TABLE=1", tableFile, test)
	}
	for _, line := range results[2:] {
		require.NotContains(t, line, "no:", "a checker's verdict varies between invocations")
		require.Regexp(t, `(accepted|rejected) (\d+) of \d+ \|`, line)
		fields := strings.Split(line, "|")
		require.Contains(t, fields[5], fmt.Sprintf("%d of %d", tableInvocations, tableInvocations), "not every invocation decided alike: %s", line)
	}
}

// tableLines returns the lines of the first table of checker verdicts in
// the file at path.
func tableLines(t *testing.T, path string) []string {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var lines []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "| # | checker test | answer |") {
			in = true
		}
		if in && !strings.HasPrefix(line, "|") {
			break
		}
		if in {
			lines = append(lines, line)
		}
	}
	require.NoError(t, sc.Err())
	return lines
}

// The problem book's index lists every problem that has a checker, and
// says how many there are.
func TestProblemIndex(t *testing.T) {
	page, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	require.Contains(t, string(page), fmt.Sprintf("\n%d graded problems:", len(problemNumbers)),
		"README.md's count of problems is not the number of checkers")
	for test, n := range problemNumbers {
		require.Regexp(t, fmt.Sprintf("\n\\| %d \\| [^|]+ \\| [^|]+ \\| `TestProblem%d` \\| `%s` \\|", n, n, test), string(page),
			"README.md's index has no row for problem %d", n)
	}
}
