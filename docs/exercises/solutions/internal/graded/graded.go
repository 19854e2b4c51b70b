// Package graded gates the tests that grade the solutions to the exercises:
// they run only when asked for, so that make test does not run the answers
// by accident.
package graded

import (
	"os"
	"testing"
)

// Env is the environment variable that asks for the solutions' tests.
const Env = "SEMACAT_SOLUTIONS"

// RequireAsked skips t unless Env is set.
func RequireAsked(t *testing.T) {
	t.Helper()
	if os.Getenv(Env) == "" {
		t.Skipf("a solution; run with %s=1 to grade it", Env)
	}
}
