package philosophers_test

import (
	"os"
	"testing"
)

func requireAsked(t *testing.T) {
	if os.Getenv("SEMACAT_SOLUTIONS") == "" {
		t.Skip("a solution; run with SEMACAT_SOLUTIONS=1 to grade it")
	}
}
