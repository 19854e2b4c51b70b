package condsem_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// A cancellation that comes before an Acquire takes the mutex wins over the
// permits that a Release, completed before the Acquire takes it, frees:
// Acquire looks at its context under the mutex, with the permits.
func TestCancelBeforeLock(t *testing.T) {
	for name, newAvailable := range newAvailable {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newAvailable(1, 0)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				fired := false
				s.(interface{ SetTestHookLock(func()) }).SetTestHookLock(func() {
					fired = true
					cancel()
					s.Release(1)
				})
				err := s.Acquire(ctx, 1)
				require.True(t, fired, "the hook did not run")
				require.ErrorIs(t, err, context.Canceled, "a permit freed after the cancellation went to the canceled Acquire")
				assert.Equal(t, int64(1), s.(interface{ Available() int64 }).Available())
			})
		})
	}
}
