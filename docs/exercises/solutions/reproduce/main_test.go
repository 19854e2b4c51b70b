package reproduce_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func requireAsked(t *testing.T) {
	if os.Getenv("SEMACAT_SOLUTIONS") == "" {
		t.Skip("a solution; run with SEMACAT_SOLUTIONS=1 to grade it")
	}
}
