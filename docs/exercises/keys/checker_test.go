package keys_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The comparison itself can fail: each wrong key below is reported.
func TestKeyChecker(t *testing.T) {
	ran := outcome{Failed: []string{"TestConformance/Cancel/AlreadyDone", "TestConformanceNewAvailable/Cancel/AlreadyDone", "TestOwn"}}
	for _, tc := range []struct {
		name, cell string
		o          outcome
		want       []string
	}{
		{"exact", "`Cancel/AlreadyDone` in both runs, and `TestOwn`", ran, nil},
		{"a parent names its subtests", "`Cancel` and `TestOwn`", ran, nil},
		{"calls are not names", "`Cancel/AlreadyDone`, `TestOwn`; `Acquire(1)` waits", ran, nil},
		{"a failure left out", "`Cancel/AlreadyDone`", ran, []string{"TestOwn failed, and the key does not say so"}},
		{"a wrong failure", "`Cancel/AlreadyDone`, `TestOwn`, `Model`", ran, []string{"the key says Model fails; it passed"}},
		{"a hang not seen", "`Cancel/AlreadyDone`, `TestOwn`, hangs until `-timeout`", ran, []string{"the key says the run hangs: true; it hung: false"}},
		{"a failure in some runs, seen", "`Cancel/AlreadyDone`, `TestOwn` (in some runs)", ran, nil},
		{"a failure in some runs, not seen", "`Cancel/AlreadyDone`, `TestOwn`, `Model` (in some runs)", ran, nil},
		{"in some runs covers no other name", "`Cancel/AlreadyDone` (in some runs)", ran, []string{"TestOwn failed, and the key does not say so"}},
		{"a hang not said", "`TestOwn`", outcome{Failed: []string{"TestOwn"}, Hung: true}, []string{"the key says the run hangs: false; it hung: true"}},
	} {
		names, hangs := predicted(tc.cell)
		got := mismatches(names, hangs, tc.o)
		if assert.Len(t, got, len(tc.want), tc.name) {
			for i := range got {
				assert.Contains(t, got[i], tc.want[i], tc.name)
			}
		}
	}
}
