package handoff

import (
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/acquiretest"
	"github.com/semacat/sem/semtest"
)

// The additive contenders that look at contexts decide a cancellation
// against a grant as weighted does, at the grant: a waiter granted keeps
// its permits even when its context is canceled before it returns.
func TestAdditiveCancelAfterGrant(t *testing.T) {
	for _, c := range fifoContenders[1:] {
		t.Run(c.name, func(t *testing.T) {
			acquiretest.CheckCancelAfterGrant(t, func(size, available int64) sem.Semaphore {
				s := c.new(size)
				if !s.TryAcquire(size - available) {
					t.Fatalf("%s: TryAcquire(%d) on a new semaphore failed", c.name, size-available)
				}
				return s
			}, true)
		})
	}
}

// The additive contenders from addChecks on, and addLazy, keep the whole
// contract with weighted's guarantees, so that the cost of each step is
// that of a feature, not of a shortcut.
func TestAdditiveConformance(t *testing.T) {
	for _, c := range fifoContenders[3:] {
		t.Run(c.name, func(t *testing.T) {
			semtest.Run(t, c.new, semtest.Guarantees{FIFO: true, NoStarvation: true, NoBarging: true},
				semtest.WithPrograms(1), semtest.WithStress(4, 200))
		})
	}
}
