package solutions_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// startFull wraps a constructor so that every semaphore starts with all
// its permits free: the wrong initial value, for the wrong solutions that
// only get it wrong.
func startFull(newSemaphore check.NewSemaphore) check.NewSemaphore {
	return func(size, _ int64) sem.Semaphore { return newSemaphore(size, size) }
}
