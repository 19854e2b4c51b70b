package spinsem_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/acquiretest"
	"github.com/semacat/sem/spinsem"
)

// afterGrantTrials is how many times each stress test repeats the sequence
// at each GOMAXPROCS.
const afterGrantTrials = 1000

func newAvailable(size, available int64) sem.Semaphore { return spinsem.NewAvailable(size, available) }

// In normal mode a Release wakes the waiter, which looks at its context
// before it takes its permits and keeps them once taken, even when its
// context is canceled and another goroutine releases them before it
// returns. Acquire never panics.
func TestCancelAfterGrant(t *testing.T) {
	acquiretest.CheckCancelAfterGrant(t, newAvailable, false)
}

func TestCancelAfterGrantStress(t *testing.T) {
	acquiretest.StressCancelAfterGrant(t, newAvailable, false, afterGrantTrials)
}

// A cancellation that comes after an Acquire has looked at its context, but
// before a Release frees the permits, wins: in each spin round, and under
// the mutex before the request queues.
func TestCancelBeforeTake(t *testing.T) {
	acquiretest.CheckCancelBeforeTake(t, newAvailable)
}

// In starvation mode the Release hands the permits to the waiter, and the
// handoff is final: when the waiter's context is canceled and another
// goroutine releases the permits before the waiter returns, Acquire returns
// nil and the semaphore has its permits back, no more. The park hook runs
// the whole sequence after the waiter is queued and before it blocks, so
// that its select finds its wake-up and ctx.Done() both ready and picks
// either; the rounds make it all but certain that both are taken.
func TestCancelAfterHandoff(t *testing.T) {
	t.Parallel()
	for range 20 {
		synctest.Test(t, func(t *testing.T) {
			s := exhausted(t, 2)
			ctx, cancel := context.WithCancel(context.Background())
			fired := false
			s.SetTestHookPark(func() {
				fired = true
				time.Sleep(2 * spinsem.StarvationThreshold)
				s.Release(1)
				require.True(t, s.Mode().Starving)
				s.Release(1) // the handoff
				cancel()
				released := make(chan struct{})
				go func() {
					defer close(released)
					s.Release(2)
				}()
				<-released
			})
			err := s.Acquire(ctx, 2)
			require.True(t, fired, "the Acquire did not park")
			assert.NoError(t, err, "a waiter handed its permits returned an error")
			assert.Equal(t, spinsem.Mode{Free: 2}, s.Mode(), "after the handed permits came back")
		})
	}
}

// A waiter woken in normal mode looks at its context before it takes its
// permits on its turn, and after it loads the state it takes them from: a
// cancellation after that look, followed by a Release that frees the
// permits, wins. A barging TryAcquire takes the permit whose Release woke
// the waiter, so that only the later Release frees one.
func TestCancelBeforeTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := spinsem.NewAvailable(2, 0)
		s.SetProcs(1) // no spin: the waiter parks at once
		parent, cancel := context.WithCancel(context.Background())
		defer cancel()
		ctx := &acquiretest.ErrHook{Context: parent}
		s.SetTestHookPark(func() {
			s.Release(1) // wakes the waiter
			require.True(t, s.TryAcquire(1), "a running goroutine could not barge in normal mode")
			ctx.Arm(1, func() {
				cancel()
				s.Release(1) // a woken waiter is on its way: this Release takes no lock
			})
		})
		err := s.Acquire(ctx, 1)
		require.True(t, ctx.Fired(), "the woken waiter did not look at its context on its turn")
		require.ErrorIs(t, err, context.Canceled, "a permit freed after the cancellation went to the canceled waiter")
		assert.Equal(t, spinsem.Mode{Free: 1}, s.Mode())
	})
}
