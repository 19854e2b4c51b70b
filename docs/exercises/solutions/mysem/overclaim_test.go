//go:build semacat_keys

package mysem_test

import (
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/exercises/solutions/internal/graded"
	"github.com/semacat/sem/docs/exercises/solutions/mysem"
	"github.com/semacat/sem/semtest"
)

// The solution of exercise 1 with a guarantee it does not have claimed
// (graded.ClaimEnv names it): the answer key says what semtest reports,
// and docs/exercises/keys runs this to check it.
func TestOverclaim(t *testing.T) {
	semtest.Run(t, func(size int64) sem.Semaphore { return mysem.New(size) },
		graded.Claimed(t, semtest.Guarantees{}))
}
