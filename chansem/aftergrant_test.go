package chansem_test

import (
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/internal/acquiretest"
)

// afterGrantTrials is how many times each stress test repeats the sequence
// at each GOMAXPROCS.
const afterGrantTrials = 1000

func newAvailable(size, available int64) sem.Semaphore { return chansem.NewAvailable(size, available) }

// A waiter whose Release handed it a slot is granted it when it counts the
// slot held: if its context is done before that, it gives the slot back
// and returns ctx.Err(); once counted, the permit is its own, and another
// goroutine may release it. Acquire never panics.
func TestCancelAfterGrant(t *testing.T) {
	acquiretest.CheckCancelAfterGrant(t, newAvailable, false)
}

func TestCancelAfterGrantStress(t *testing.T) {
	acquiretest.StressCancelAfterGrant(t, newAvailable, false, afterGrantTrials)
}

// A cancellation that comes after an Acquire has looked at its context, but
// before a Release frees a slot, wins: the single-permit fast path looks
// again once its send has taken the slot.
func TestCancelBeforeTake(t *testing.T) {
	acquiretest.CheckCancelBeforeTake(t, newAvailable)
}
