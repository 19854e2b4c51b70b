package outsideshared

import (
	"os"
	"testing"
)

// needB8Run skips a long scenario run unless B8_RUN is set. make test runs
// this package under the race detector on two cores, where these runs take
// minutes; the cheap checks run there always (README.md).
func needB8Run(t *testing.T) {
	t.Helper()
	if os.Getenv("B8_RUN") == "" {
		t.Skip("a long scenario run of the outside check: set B8_RUN=1 to run it (README.md)")
	}
}
