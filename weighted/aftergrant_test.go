package weighted_test

import (
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/acquiretest"
	"github.com/semacat/sem/weighted"
)

// afterGrantTrials is how many times each stress test repeats the sequence
// at each GOMAXPROCS.
const afterGrantTrials = 1000

func newAvailable(size, available int64) sem.Semaphore { return weighted.NewAvailable(size, available) }

// A waiter granted its permits by a Release keeps them, even when its
// context is canceled and another goroutine releases them before the
// waiter returns: Acquire returns nil and never panics.
func TestCancelAfterGrant(t *testing.T) {
	acquiretest.CheckCancelAfterGrant(t, newAvailable, true)
}

func TestCancelAfterGrantStress(t *testing.T) {
	acquiretest.StressCancelAfterGrant(t, newAvailable, true, afterGrantTrials)
}

// A cancellation that comes after an Acquire has looked at its context, but
// before a Release frees the permits, wins: on the fast path, and under the
// mutex before the request queues.
func TestCancelBeforeTake(t *testing.T) {
	acquiretest.CheckCancelBeforeTake(t, newAvailable)
}
