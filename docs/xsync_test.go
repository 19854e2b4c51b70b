package docs_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// xsyncRows is what docs/choosing.md says semtest reports of x/sync's
// Weighted with every guarantee claimed: the rows that fail, the contract's
// and none of the guarantees'.
var xsyncRows = []string{"BadInput", "Cancel/GrantedThenReleased", "ExceedsSize", "Model"}

// The conformance run of x/sync (docs/xsyncconf, behind a build tag) fails
// exactly the rows docs/choosing.md names, passes every guarantee, and in
// Cancel/GrantedThenReleased the failure is Acquire's panic.
func TestXSyncAgainstSemtest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the conformance suite on x/sync")
	}
	cmd := exec.CommandContext(t.Context(), "go", "test", "-count=1", "-tags", "semacat_keys", "-json", "-timeout", "120s", "./xsyncconf/")
	out, _ := cmd.Output() // the failing rows make go test exit non-zero
	failed, outputs := map[string]bool{}, map[string]string{}
	passed := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e struct{ Action, Test, Output string }
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Test == "" {
			continue
		}
		row := strings.TrimPrefix(e.Test, "TestConformance/")
		switch e.Action {
		case "fail":
			failed[row] = true
		case "pass":
			passed++
		case "output":
			outputs[row] += e.Output
		}
	}
	require.Positive(t, passed, "the suite did not run:\n%s", out)
	matched := map[string]bool{}
	for row := range failed {
		i := slices.IndexFunc(xsyncRows, func(r string) bool { return row == r || strings.HasPrefix(row, r+"/") })
		switch {
		case i >= 0:
			matched[xsyncRows[i]] = true
		case row == "TestConformance" || slices.ContainsFunc(xsyncRows, func(r string) bool { return strings.HasPrefix(r, row+"/") }):
			// an ancestor of a row the page names
		default:
			t.Errorf("x/sync failed %s, which docs/choosing.md does not name", row)
		}
	}
	for _, r := range xsyncRows {
		assert.True(t, matched[r], "docs/choosing.md says x/sync fails %s, and the run passed it", r)
	}
	for row := range failed {
		assert.False(t, strings.HasPrefix(row, "Guarantees"), "x/sync failed %s", row)
	}
	assert.Contains(t, outputs["Cancel/GrantedThenReleased"], "Acquire(1) panicked")
	assert.Contains(t, outputs["Cancel/GrantedThenReleased"], "released more than held")
}
