// Package graded gates the tests that grade the solutions to the exercises:
// they run only when asked for, so that make test does not run the answers
// by accident.
package graded

import (
	"os"
	"testing"

	"github.com/semacat/sem/semtest"
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

// ClaimEnv is the environment variable that names the guarantee an
// overclaiming test adds to what its solution has: FIFO, UnitFIFO,
// NoStarvation or NoBarging. The answer keys' tests (docs/exercises/keys)
// set it to check what semtest reports for a false claim.
const ClaimEnv = "SEMACAT_CLAIM"

// Claimed is base with the guarantee named by ClaimEnv claimed too. It
// fails t if the variable names no guarantee.
func Claimed(t *testing.T, base semtest.Guarantees) semtest.Guarantees {
	t.Helper()
	g := base
	switch claim := os.Getenv(ClaimEnv); claim {
	case "FIFO":
		g.FIFO = true
	case "UnitFIFO":
		g.UnitFIFO = true
	case "NoStarvation":
		g.NoStarvation = true
	case "NoBarging":
		g.NoBarging = true
	default:
		t.Fatalf("%s=%q names no guarantee", ClaimEnv, claim)
	}
	return g
}
