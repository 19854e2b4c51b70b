package weighted_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// The same for a waiter failed under the mutex, by a shrink below its
// request, and canceled before its wake-up: it returns its context's error,
// and no wake-up survives it to wake the next waiter on its node.
func TestCanceledBeforeWakeAfterFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(2)
		require.True(t, s.TryAcquire(2))
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
		s.Resize(1)
		synctest.Wait()
		require.True(t, fired, "the shrink woke nobody")
		require.True(t, failed.Returned())
		require.ErrorIs(t, failed.Err, context.Canceled)
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
