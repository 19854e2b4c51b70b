package keys_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// root is the repository root, from this package's folder.
const root = "../../.."

// edit replaces the one occurrence of Old in File (from the root) by New.
type edit struct{ File, Old, New string }

// outcome is what a run of a package's tests showed: the failing tests
// that have no failing subtest, and whether the run hung until -timeout.
type outcome struct {
	Failed []string
	Hung   bool
}

// runBroken applies e through an overlay and runs the tests of pkg (a
// path from the root) matching run, with the given -timeout.
func runBroken(t *testing.T, e edit, pkg, run string, timeout time.Duration) outcome {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, e.File))
	require.NoError(t, err)
	require.Equal(t, 1, bytes.Count(src, []byte(e.Old)), "the change no longer applies: %q must occur once in %s", e.Old, e.File)
	dir := t.TempDir()
	broken := filepath.Join(dir, filepath.Base(e.File))
	require.NoError(t, os.WriteFile(broken, bytes.Replace(src, []byte(e.Old), []byte(e.New), 1), 0o644))
	abs, err := filepath.Abs(filepath.Join(root, e.File))
	require.NoError(t, err)
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {abs: broken}})
	require.NoError(t, err)
	ov := filepath.Join(dir, "overlay.json")
	require.NoError(t, os.WriteFile(ov, overlay, 0o644))

	return goTest(t, pkg, timeout, nil, "-overlay", ov, "-run", run)
}

// goTest runs go test -json on pkg (a path from the root) with the given
// -timeout, extra environment and flags, and reports what failed.
func goTest(t *testing.T, pkg string, timeout time.Duration, env []string, flags ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout+2*time.Minute) // the build, on a loaded machine
	defer cancel()
	args := append([]string{"test", "-count=1", "-json", "-timeout", timeout.String()}, flags...)
	cmd := exec.CommandContext(ctx, "go", append(args, "./"+pkg)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	out, _ := cmd.Output() // failing tests make go test exit non-zero
	return parseJSON(t, out)
}

// event is one line of go test -json.
type event struct {
	Action, Test, Output, FailedBuild string
}

func parseJSON(t *testing.T, out []byte) outcome {
	var o outcome
	var failed []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		require.Empty(t, e.FailedBuild, "the broken code does not build")
		if e.Action == "fail" && e.Test != "" {
			failed = append(failed, e.Test)
		}
		if strings.HasPrefix(e.Output, "panic: test timed out") {
			o.Hung = true
		}
		if m := runningRE.FindStringSubmatch(e.Output); o.Hung && m != nil {
			failed = append(failed, m[1]) // running when the timeout struck
		}
	}
	for _, f := range failed {
		if !slices.ContainsFunc(failed, func(g string) bool { return strings.HasPrefix(g, f+"/") }) {
			o.Failed = append(o.Failed, f)
		}
	}
	slices.Sort(o.Failed)
	t.Logf("failed: %q, hung: %v", o.Failed, o.Hung)
	return o
}

// covers reports whether the key's name k (a top-level test, or a semtest
// row such as Cancel/AlreadyDone) names the failing test f.
func covers(k, f string) bool {
	if k == f || strings.HasPrefix(f, k+"/") {
		return true
	}
	_, row, ok := strings.Cut(f, "/") // the row, inside any conformance test
	return ok && (row == k || strings.HasPrefix(row, k+"/"))
}

// checkPrediction fails t unless the named tests are exactly those that
// failed, and the run hung exactly when the key says so.
func checkPrediction(t *testing.T, names []string, hangs bool, o outcome) {
	t.Helper()
	for _, m := range mismatches(names, hangs, o) {
		t.Error(m)
	}
}

// mismatches says how a key's prediction differs from the outcome.
func mismatches(names []string, hangs bool, o outcome) []string {
	var out []string
	for _, f := range o.Failed {
		if !slices.ContainsFunc(names, func(k string) bool { return covers(strings.TrimSuffix(k, "?"), f) }) {
			out = append(out, f+" failed, and the key does not say so")
		}
	}
	for _, k := range names {
		if strings.HasSuffix(k, "?") {
			continue // fails in some runs only: the key allows it, never requires it
		}
		if !slices.ContainsFunc(o.Failed, func(f string) bool { return covers(k, f) }) {
			out = append(out, fmt.Sprintf("the key says %s fails; it passed (failing: %q)", k, o.Failed))
		}
	}
	if hangs != o.Hung {
		out = append(out, fmt.Sprintf("the key says the run hangs: %v; it hung: %v", hangs, o.Hung))
	}
	return out
}

// runningRE is a line of the list of tests still running that a timeout
// prints.
var runningRE = regexp.MustCompile(`^\s+(Test\S+) \(\S+\)\s*$`)

var tickRE = regexp.MustCompile("`([^`]+)`")

// testNameRE is a test or semtest row as a key names it (TestX, Model,
// Cancel/AlreadyDone), unlike a call or an expression in backticks.
var testNameRE = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*(/[A-Za-z0-9]+)*$`)

// keyRow is a row of a key table in a page: the change, and what fails.
type keyRow struct{ Change, Fails string }

// keyTable returns the rows of the markdown table that starts with header
// in the page.
func keyTable(t *testing.T, page, header string) []keyRow {
	md, err := os.ReadFile(filepath.Join(root, page))
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(md), header)
	require.True(t, ok, "%s has no table %q", page, header)
	var rows []keyRow
	for _, line := range strings.Split(rest, "\n")[2:] {
		line = strings.TrimSpace(line) // a table may be indented in a list
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		require.Len(t, cells, 2, "row %q", line)
		rows = append(rows, keyRow{cells[0], cells[1]})
	}
	return rows
}

// predicted is what a key's cell names: the tests in backticks (with a
// "?" after those that fail in some runs only), and whether it says the
// run hangs (it names `-timeout`).
func predicted(cell string) (names []string, hangs bool) {
	for _, m := range tickRE.FindAllStringSubmatchIndex(cell, -1) {
		name := cell[m[2]:m[3]]
		switch {
		case name == "-timeout":
			hangs = true
		case testNameRE.MatchString(name):
			if strings.HasPrefix(cell[m[1]:], someRuns) {
				name += "?"
			}
			names = append(names, name)
		}
	}
	return names, hangs
}

// someRuns, right after a name, says that the test fails in some runs
// only, as the goroutines happen to be scheduled: the key allows its
// failure without requiring it.
const someRuns = " (in some runs)"
