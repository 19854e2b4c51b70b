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

// A cancellation followed at once by a Resize, before the canceled waiter
// has withdrawn, can be served in two orders, and which one depends on
// whether the waiter's goroutine or the Resize takes the mutex first.
// Withdrawn first, the waiters behind it that fit the old size are granted
// at once, and the Resize then leaves more held than its size. Resized
// first, the Resize fails the canceled waiter if its request exceeds the
// new size, and grants only what fits that size. Both are what the calls
// say, in some order, and neither loses a permit. An outside oracle whose
// model knew only the second order once took the first for a lost result;
// each subtest here sets one order.
func TestCancelThenResizeEitherOrder(t *testing.T) {
	t.Run("withdrawn first", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s, canceled, behind := queueTwo(t)
			canceled.Cancel()
			synctest.Wait()
			s.Resize(1)
			synctest.Wait()
			require.True(t, canceled.Returned())
			assert.ErrorIs(t, canceled.Err, context.Canceled)
			require.True(t, behind.Served(), "the withdrawal grants what fits the size before the Resize")
			assert.Equal(t, int64(-1), s.Available(), "two held on a size of one")
			s.Release(2)
			assert.Equal(t, int64(1), s.Available())
		})
	})
	t.Run("resized first", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s, canceled, behind := queueTwo(t)
			// Canceled under the Resize's mutex: the waiter cannot
			// withdraw before the Resize has decided.
			s.SetTestHookFrozen(func() { canceled.Cancel() })
			s.Resize(1)
			s.SetTestHookFrozen(nil)
			synctest.Wait()
			require.True(t, canceled.Returned())
			assert.ErrorIs(t, canceled.Err, sem.ErrExceedsSize, "the Resize saw the request before the cancellation")
			assert.False(t, behind.Returned(), "one held on a size of one: nothing is free")
			assert.Equal(t, int64(0), s.Available())
			s.Release(1)
			synctest.Wait()
			require.True(t, behind.Served())
		})
	})
}

// queueTwo returns a semaphore of size 2 with one permit held, a waiter
// for 2 permits whose context can be canceled, and a waiter for 1 behind
// it, which fits the free permit but may not pass the head.
func queueTwo(t *testing.T) (*weighted.Semaphore, *acquiretest.Call, *acquiretest.Call) {
	s := weighted.New(2)
	require.True(t, s.TryAcquire(1))
	canceled := acquiretest.Go(s, 2)
	synctest.Wait()
	behind := acquiretest.Go(s, 1)
	synctest.Wait()
	require.False(t, behind.Returned(), "a waiter passed the head")
	return s, canceled, behind
}
