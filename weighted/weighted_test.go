package weighted_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/acquiretest"
	"github.com/semacat/sem/semtest"
	"github.com/semacat/sem/weighted"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var _ sem.Semaphore = (*weighted.Semaphore)(nil)

func TestConformance(t *testing.T) {
	semtest.Run(t, func(size int64) sem.Semaphore { return weighted.New(size) },
		semtest.Guarantees{FIFO: true, NoStarvation: true, NoBarging: true})
}

// TestConformanceNewAvailable runs the suite again with the NewAvailable
// constructor, so that its rows run too.
func TestConformanceNewAvailable(t *testing.T) {
	acquiretest.ConformanceNewAvailable(t, func(size int64) sem.Semaphore { return weighted.New(size) },
		semtest.Guarantees{FIFO: true, NoStarvation: true, NoBarging: true},
		func(size, available int64) sem.Semaphore { return weighted.NewAvailable(size, available) })
}

// The largest size fits the state word, which keeps the free count above a
// flag bit.
func TestHugeSize(t *testing.T) {
	const size = 1<<63 - 1
	s := weighted.New(size)
	assert.Equal(t, int64(size), s.Available())
	require.True(t, s.TryAcquire(size))
	assert.Equal(t, int64(0), s.Available())
	assert.False(t, s.TryAcquire(1))
	s.Release(size)
	assert.Equal(t, int64(size), s.Available())
}

func TestBadInputMessages(t *testing.T) {
	acquiretest.CheckBadInputMessages(t, "weighted", "New", func(size int64) sem.Semaphore { return weighted.New(size) })
}

// A fast-path Release that lands between a new waiter's finding that its
// request does not fit and its setting of the queued bit must not be lost.
// If it frees enough, the waiter sees the permits and takes them instead of
// going to sleep with nobody left to wake it; if it frees too little, the
// waiter queues, and the next Release must find it queued and wake it.
func TestReleaseRacingEnqueue(t *testing.T) {
	t.Parallel()
	for _, racing := range []int64{2, 1} {
		t.Run(fmt.Sprintf("release=%d", racing), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := weighted.New(3)
				require.True(t, s.TryAcquire(3))
				fired := false
				s.SetTestHookQueue(func() {
					if !fired {
						fired = true
						s.Release(racing) // no waiter is queued yet: the lock-free path
					}
				})
				w := acquiretest.Go(s, 2)
				synctest.Wait()
				require.True(t, fired, "the hook did not run: the Acquire never reached the queue")
				if racing < w.N {
					require.False(t, w.Returned(), "Acquire(2) returned with only %d permit free", racing)
					assert.False(t, s.TryAcquire(1), "TryAcquire barged past a queued waiter")
					s.Release(w.N - racing)
					synctest.Wait()
				}
				require.True(t, w.Returned(), "the Acquire slept through Releases that freed what it needs")
				require.NoError(t, w.Err)
				assert.Equal(t, int64(0), s.Available())
				assert.False(t, s.TryAcquire(1))
				s.Release(3)
				w.Cancel()
				assert.Equal(t, int64(3), s.Available())
			})
		})
	}
}

// A waiter whose context is canceled before the Release that would grant it
// is not granted: the Release looks at the context first, fails the waiter
// and keeps the permits. The hook cancels and releases before the waiter
// blocks, so that its select finds its wake-up and ctx.Done() both ready and
// picks either; both ways it returns the context's error holding nothing,
// and the rounds make it all but certain that both are taken.
func TestCancelBeforeGrantWins(t *testing.T) {
	t.Parallel()
	for range 20 {
		synctest.Test(t, func(t *testing.T) {
			s := weighted.New(2)
			require.True(t, s.TryAcquire(1))
			ctx, cancel := context.WithCancel(context.Background())
			fired := false
			s.SetTestHookPark(func() {
				fired = true
				cancel()
				s.Release(1) // would grant the queued Acquire(2)
			})
			err := s.Acquire(ctx, 2)
			require.True(t, fired, "the Acquire did not wait")
			require.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, int64(2), s.Available(), "the canceled waiter was granted")
			require.True(t, s.TryAcquire(2), "the fast path did not come back")
			s.Release(2)
		})
	}
}

// Canceling a waiter that is not at the head changes nothing for the others:
// the head still blocks those behind it, and the canceled one is never
// served.
func TestCancelMiddleKeepsOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(3)
		require.True(t, s.TryAcquire(3))
		head := acquiretest.Go(s, 3)
		synctest.Wait()
		middle := acquiretest.Go(s, 1)
		synctest.Wait()
		tail := acquiretest.Go(s, 1)
		synctest.Wait()
		s.Release(2)
		middle.Cancel()
		synctest.Wait()
		require.True(t, middle.Returned())
		require.ErrorIs(t, middle.Err, context.Canceled)
		assert.False(t, head.Returned())
		assert.False(t, tail.Returned(), "the tail passed the head after the middle was canceled")
		assert.Equal(t, int64(2), s.Available())
		s.Release(1)
		synctest.Wait()
		require.True(t, head.Returned())
		require.NoError(t, head.Err)
		assert.False(t, tail.Returned())
		s.Release(3)
		synctest.Wait()
		require.True(t, tail.Returned())
		require.NoError(t, tail.Err)
		s.Release(1)
		for _, a := range []*acquiretest.Call{head, middle, tail} {
			a.Cancel()
		}
		assert.Equal(t, int64(3), s.Available())
	})
}

// When the last waiter leaves, by cancellation or by being served, the fast
// paths come back: TryAcquire succeeds again.
func TestFastPathReturnsAfterQueueDrains(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(2)
		require.True(t, s.TryAcquire(2))
		w := acquiretest.Go(s, 2)
		synctest.Wait()
		s.Release(1)
		assert.False(t, s.TryAcquire(1), "TryAcquire barged past a queued Acquire(2)")
		w.Cancel()
		synctest.Wait()
		require.ErrorIs(t, w.Err, context.Canceled)
		require.True(t, s.TryAcquire(1), "TryAcquire failed after the only waiter left")
		s.Release(2)
		assert.Equal(t, int64(2), s.Available())
	})
}

// Zero-weight requests are no-ops even while waiters are queued: they take
// nothing, so they cannot pass anyone.
func TestZeroWeightWhileQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(1)
		require.True(t, s.TryAcquire(1))
		w := acquiretest.Go(s, 1)
		synctest.Wait()
		assert.True(t, s.TryAcquire(0), "TryAcquire(0) while a waiter is queued")
		require.NoError(t, s.Acquire(context.Background(), 0), "Acquire(ctx, 0) while a waiter is queued")
		s.Release(0)
		assert.False(t, w.Returned())
		s.Release(1)
		synctest.Wait()
		require.NoError(t, w.Err)
		s.Release(1)
		w.Cancel()
	})
}
