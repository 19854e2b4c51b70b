package acquiretest

import (
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/semtest"
)

// ConformanceNewAvailable runs semtest.Run a second time for a strategy
// whose TestConformance already ran it with newSem and g, now also giving
// the suite newAvailable so that its NewAvailable rows run. The rows the
// first run already made are cut short: one model program, a small stress.
func ConformanceNewAvailable(t *testing.T, newSem func(size int64) sem.Semaphore, g semtest.Guarantees,
	newAvailable func(size, available int64) sem.Semaphore) {
	semtest.Run(t, newSem, g, semtest.WithNewAvailable(newAvailable), semtest.WithPrograms(1), semtest.WithStress(2, 10))
}
