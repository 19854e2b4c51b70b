package mysem_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/exercises/solutions/mysem"
	"github.com/semacat/sem/semtest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var _ sem.Semaphore = (*mysem.Semaphore)(nil)

// The grading of exercise 1: the whole contract, no guarantee claimed.
func TestConformance(t *testing.T) {
	if os.Getenv("SEMACAT_SOLUTIONS") == "" {
		t.Skip("a solution; run with SEMACAT_SOLUTIONS=1 to grade it")
	}
	semtest.Run(t, func(size int64) sem.Semaphore { return mysem.New(size) }, semtest.Guarantees{})
}
