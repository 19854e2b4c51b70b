package weighted_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/acquiretest"
	"github.com/semacat/sem/weighted"
)

// A waiter granted under the mutex is woken only after the unlock. If its
// context is canceled in between, it keeps its grant, and it must take its
// wake-up before it gives its node back: a wake-up left behind would let
// the next Acquire that waits on that node return holding nothing it was
// granted. The hook cancels the waiter in that gap and lets it run to the
// point where it waits for its wake-up.
func TestCanceledBeforeWakeKeepsGrant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(1)
		require.True(t, s.TryAcquire(1))
		granted := acquiretest.Go(s, 1)
		synctest.Wait()
		fired := false
		s.SetTestHookWake(func() {
			if !fired {
				fired = true
				granted.Cancel()
				synctest.Wait()
			}
		})
		s.Release(1)
		synctest.Wait()
		require.True(t, fired, "the Release woke nobody")
		require.True(t, granted.Returned())
		require.NoError(t, granted.Err, "a grant made before the cancellation was lost")
		next := acquiretest.Go(s, 1)
		synctest.Wait()
		require.False(t, next.Returned(), "an Acquire returned with no permit free: woken by a stale wake-up")
		s.Release(1)
		synctest.Wait()
		require.True(t, next.Returned())
		require.NoError(t, next.Err)
		s.Release(1)
		next.Cancel()
		assert.Equal(t, int64(1), s.Available())
	})
}

// The same for a waiter failed under the mutex and canceled before its
// wake-up: the failure was made first, so it is final, and the waiter
// returns it, not its context's error, whichever case its select picks;
// and no wake-up survives it to wake the next waiter on its node. The hook
// cancels the waiter in the gap after the failure and lets it run into
// cancel, where it waits for its wake-up.
func TestCanceledBeforeWakeAfterFailure(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail func(*weighted.Semaphore)
		want error
	}{
		{"Resize", func(s *weighted.Semaphore) { s.Resize(1) }, sem.ErrExceedsSize},
		{"Close", func(s *weighted.Semaphore) { require.NoError(t, s.Close()) }, sem.ErrClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := weighted.New(2)
				require.True(t, s.TryAcquire(2))
				var waits []sem.WaitEvent
				s.OnWait(func(e sem.WaitEvent) { waits = append(waits, e) })
				failed := acquiretest.Go(s, 2)
				synctest.Wait()
				fired := false
				s.SetTestHookWake(func() {
					if !fired {
						fired = true
						failed.Cancel()
						synctest.Wait()
					}
				})
				tc.fail(s)
				synctest.Wait()
				require.True(t, fired, "the failure woke nobody")
				require.True(t, failed.Returned())
				require.ErrorIs(t, failed.Err, tc.want, "a failure made before the cancellation was replaced")
				require.Len(t, waits, 1)
				require.ErrorIs(t, waits[0].Err, tc.want, "OnWait saw another error than Acquire returned")
				s.OnWait(nil)
				if tc.name == "Close" {
					s.Release(2)
					return
				}
				next := acquiretest.Go(s, 1)
				synctest.Wait()
				require.False(t, next.Returned(), "an Acquire returned with no permit free: woken by a stale wake-up")
				s.Release(2)
				synctest.Wait()
				require.True(t, next.Returned())
				require.NoError(t, next.Err)
				s.Release(1)
				next.Cancel()
				assert.Equal(t, int64(1), s.Available())
			})
		})
	}
}

// In steady state a blocked Acquire allocates nothing: woken waiters give
// their nodes back, and later waiters take them. Two goroutines take turns
// holding a semaphore of size 1, and in each cycle the other one waits for
// the test's Release.
func TestBlockedAcquireAllocatesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(1)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		require.NoError(t, s.Acquire(ctx, 1))
		next, held := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(held)
			for range next {
				if err := s.Acquire(ctx, 1); err != nil {
					panic(err)
				}
				held <- struct{}{}
				s.Release(1)
			}
		}()
		cycle := func() {
			next <- struct{}{}
			synctest.Wait()
			if n, _ := s.Waiting(); n != 1 {
				t.Fatalf("%d Acquires wait, want the other goroutine's", n)
			}
			s.Release(1)
			<-held
			if err := s.Acquire(ctx, 1); err != nil {
				t.Fatal(err)
			}
		}
		cycle() // the first wait allocates its node
		assert.Zero(t, testing.AllocsPerRun(100, cycle))
		close(next)
		<-held
		s.Release(1)
	})
}
