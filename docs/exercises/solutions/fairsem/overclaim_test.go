//go:build semacat_keys

package fairsem_test

import (
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/exercises/solutions/fairsem"
	"github.com/semacat/sem/docs/exercises/solutions/internal/graded"
	"github.com/semacat/sem/semtest"
)

// First fit, exercise 5's step 1, with what it truly has (UnitFIFO,
// NoBarging) and one guarantee more (graded.ClaimEnv names it): the answer
// key of step 2 says what semtest reports, and docs/exercises/keys runs
// this to check it.
func TestOverclaim(t *testing.T) {
	semtest.Run(t, func(size int64) sem.Semaphore { return fairsem.NewFirstFit(size) },
		graded.Claimed(t, semtest.Guarantees{UnitFIFO: true, NoBarging: true}))
}
