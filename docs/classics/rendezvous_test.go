package classics_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/docs/classics"
	"github.com/semacat/sem/weighted"
)

// Neither side returns before the other arrives, whichever comes first,
// and what each did before its call is visible to the other after it.
func TestRendezvousWaitsForTheOther(t *testing.T) {
	for _, aFirst := range []bool{true, false} {
		name := map[bool]string{true: "A first", false: "B first"}[aFirst]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := classics.NewRendezvous()
				ctx := context.Background()
				first, second := r.A, r.B
				if !aFirst {
					first, second = r.B, r.A
				}
				var firstNote, secondNote string // written before, read after the meeting
				done := make(chan struct{})
				go func() {
					defer close(done)
					firstNote = "first was here"
					assert.NoError(t, first(ctx))
					assert.Equal(t, "second was here", secondNote)
				}()
				synctest.Wait()
				require.False(t, returned(done), "%s returned before the other side arrived", name)
				secondNote = "second was here"
				require.NoError(t, second(ctx))
				assert.Equal(t, "first was here", firstNote)
				<-done
			})
		})
	}
}

// The mistake the order of Rendezvous avoids: if each side waits for the
// other before announcing itself, both wait forever; only the deadline
// ends the wait.
func TestRendezvousWaitingFirstDeadlocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		aArrived, bArrived := weighted.NewAvailable(1, 0), weighted.NewAvailable(1, 0)
		waitFirst := func(ctx context.Context, mine, theirs *weighted.Semaphore) error {
			if err := theirs.Acquire(ctx, 1); err != nil { // BUG: waits before announcing
				return err
			}
			mine.Release(1)
			return nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		var errA, errB error
		var wg sync.WaitGroup
		wg.Go(func() { errA = waitFirst(ctx, aArrived, bArrived) })
		wg.Go(func() { errB = waitFirst(ctx, bArrived, aArrived) })
		wg.Wait()
		assert.ErrorIs(t, errA, context.DeadlineExceeded)
		assert.ErrorIs(t, errB, context.DeadlineExceeded)
		assert.Equal(t, time.Minute, time.Since(start), "only the deadline ended the wait")
	})
}

// A side that arrives twice at one Rendezvous is a programmer error, and
// panics instead of corrupting the next meeting.
func TestRendezvousSecondArrivalPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := classics.NewRendezvous()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		require.ErrorIs(t, r.A(ctx), context.DeadlineExceeded)
		assert.PanicsWithValue(t, "weighted: Release(1): released more than held (0 held)", func() { _ = r.A(ctx) })
	})
}
