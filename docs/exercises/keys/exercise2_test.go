package keys_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// exercise2 is each change of exercise 2, as the key's first column says
// it, and the edit of chansem/chansem.go that makes it.
var exercise2 = map[string]edit{
	"in `grant`, delete the look at the context (the `ctx.Err()` check and the give-back under it)": {
		File: "chansem/chansem.go",
		Old:  "\tif err := ctx.Err(); err != nil {\n\t\ts.giveBack(n)\n\t\treturn err\n\t}\n\ts.held.Add(n)\n",
		New:  "\ts.held.Add(n)\n",
	},
	"in `send`, replace the `select` by a plain send": {
		File: "chansem/chansem.go",
		Old:  "\tselect {\n\tcase s.slots <- struct{}{}:\n\t\treturn nil\n\tcase <-done:\n\t\treturn ctx.Err()\n\t}\n",
		New:  "\ts.slots <- struct{}{}\n\treturn nil\n",
	},
	"in `acquireMany`, delete `s.giveBack(got)` on cancellation (and `got`, now unused)": {
		File: "chansem/chansem.go",
		Old:  "\tfor got := range n {\n\t\tif err := s.send(ctx, &w); err != nil {\n\t\t\ts.giveBack(got)\n",
		New:  "\tfor range n {\n\t\tif err := s.send(ctx, &w); err != nil {\n",
	},
	"in `Release`, delete the over-release check of the single-permit path (the `unhold` test)": {
		File: "chansem/chansem.go",
		Old:  "\tif n == 1 {\n\t\tif held, ok := s.unhold(1); !ok {\n\t\t\tpkg.PanicOverRelease(1, held)\n\t\t}\n",
		New:  "\tif n == 1 {\n\t\ts.held.Add(-1)\n",
	},
	"in `Acquire`, pass `check.Unbounded` instead of `s.size` to `pkg.ErrAcquire`, so that no request exceeds the size": {
		File: "chansem/chansem.go",
		Old:  "\tif err := pkg.ErrAcquire(ctx, n, s.size); err != nil || n == 0 {",
		New:  "\tif err := pkg.ErrAcquire(ctx, n, check.Unbounded); err != nil || n == 0 {",
	},
	"in `acquireMany`, delete the gate (the `select` on `s.gate` and its `defer`)": {
		File: "chansem/chansem.go",
		Old:  "\tselect {\n\tcase s.gate <- struct{}{}:\n\tdefault:\n\t\tw.start()\n\t\tselect {\n\t\tcase s.gate <- struct{}{}:\n\t\tcase <-ctx.Done():\n\t\t\treturn w.end(ctx.Err())\n\t\t}\n\t}\n\tdefer func() { <-s.gate }()\n",
		New:  "",
	},
}

// exercise2Timeout ends the runs the key says hang. A run that does not
// hang ends in seconds, so it is far above that even on a loaded machine.
const exercise2Timeout = 40 * time.Second

// Every row of exercise 2's key: the change made to chansem.go fails
// exactly the tests the row names.
func TestExercise2Key(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs chansem's tests once per change")
	}
	rows := keyTable(t, "docs/exercises.md", "| change in chansem.go | what fails |")
	require.Len(t, rows, len(exercise2), "a row per change, and a change per row")
	for _, row := range rows {
		t.Run(row.Change, func(t *testing.T) {
			t.Parallel()
			e, ok := exercise2[row.Change]
			require.True(t, ok, "no edit for the change %q", row.Change)
			names, hangs := predicted(row.Fails)
			checkPrediction(t, names, hangs, runBroken(t, e, "chansem", "", exercise2Timeout))
		})
	}
}
