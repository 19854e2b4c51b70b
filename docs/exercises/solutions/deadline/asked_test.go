package deadline_test

import (
	"os"
	"testing"
)

// requireAsked skips t unless SEMACAT_SOLUTIONS is set: the tests that
// grade a solution run only when asked for, so that make test does not run
// the answers by accident. It is written out in each solution, rather than
// shared, so that a solution builds in a module of its own.
func requireAsked(t *testing.T) {
	t.Helper()
	if os.Getenv("SEMACAT_SOLUTIONS") == "" {
		t.Skip("a solution; run with SEMACAT_SOLUTIONS=1 to grade it")
	}
}
