package condsem_test

import (
	"testing"

	"github.com/semacat/sem/internal/acquiretest"
)

// afterGrantTrials is how many times each stress test repeats the sequence
// at each GOMAXPROCS.
const afterGrantTrials = 1000

// A woken waiter looks at its context before it takes its permits, and
// keeps them once taken, even when its context is canceled and another
// goroutine releases them before it returns. Acquire never panics.
func TestCancelAfterGrant(t *testing.T) {
	for name, newAvailable := range newAvailable {
		t.Run(name, func(t *testing.T) {
			acquiretest.CheckCancelAfterGrant(t, acquiretest.NewAvailable(newAvailable), false)
		})
	}
}

func TestCancelAfterGrantStress(t *testing.T) {
	for name, newAvailable := range newAvailable {
		t.Run(name, func(t *testing.T) {
			acquiretest.StressCancelAfterGrant(t, acquiretest.NewAvailable(newAvailable), false, afterGrantTrials)
		})
	}
}
