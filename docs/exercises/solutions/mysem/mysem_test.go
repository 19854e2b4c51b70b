package mysem_test

import (
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
	requireAsked(t)
	semtest.Run(t, func(size int64) sem.Semaphore { return mysem.New(size) }, semtest.Guarantees{})
}
