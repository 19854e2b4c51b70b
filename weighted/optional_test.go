package weighted_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/acquiretest"
	"github.com/semacat/sem/weighted"
)

var (
	_ sem.Resizer  = (*weighted.Semaphore)(nil)
	_ sem.Closer   = (*weighted.Semaphore)(nil)
	_ sem.Observer = (*weighted.Semaphore)(nil)
)

// Growing grants from the head of the queue only: a head that still does not
// fit blocks the smaller requests behind it, as a Release would.
func TestResizeGrowGrantsInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(2)
		require.True(t, s.TryAcquire(2))
		a := acquiretest.Go(s, 2)
		synctest.Wait()
		b := acquiretest.Go(s, 1)
		synctest.Wait()
		s.Resize(3)
		synctest.Wait()
		assert.False(t, a.Returned())
		assert.False(t, b.Returned(), "the grow served a request behind a head that does not fit")
		s.Resize(4)
		synctest.Wait()
		require.True(t, a.Served(), "the grow did not serve the head that now fits")
		assert.False(t, b.Returned())
		s.Release(2)
		synctest.Wait()
		require.True(t, b.Served())
		assert.Equal(t, int64(4), s.Size())
		assert.Equal(t, int64(1), s.Available())
		s.Release(3)
		assert.True(t, s.TryAcquire(4), "the fast path did not reopen after the grow")
		s.Release(4)
	})
}

// Shrinking revokes nothing: the permits held beyond the new size are owed,
// nothing is granted until they are paid back, and the over-release check
// counts what is really held.
func TestResizeShrinkKeepsHolders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(4)
		require.True(t, s.TryAcquire(3))
		s.Resize(2)
		assert.Equal(t, int64(-1), s.Available())
		assert.False(t, s.TryAcquire(1), "TryAcquire took a permit while more are held than the size")
		w := acquiretest.Go(s, 1)
		synctest.Wait()
		s.Release(1)
		synctest.Wait()
		assert.False(t, w.Returned(), "granted while as many permits are held as the size")
		s.Release(1)
		synctest.Wait()
		require.True(t, w.Served(), "not granted once a permit was free under the new size")
		assert.PanicsWithValue(t, "weighted: Release(3): released more than held (2 held)", func() { s.Release(3) })
		s.Release(2)
		assert.Equal(t, int64(2), s.Available())
		assert.True(t, s.TryAcquire(2), "the fast path did not reopen once the debt was paid")
		assert.False(t, s.TryAcquire(1))
		s.Release(2)
	})
}

// A waiting request larger than the new size fails at once, and the requests
// around it keep their places.
func TestResizeFailsLargerWaiters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(4)
		require.True(t, s.TryAcquire(4))
		calls := []*acquiretest.Call{acquiretest.Go(s, 1)}
		synctest.Wait()
		calls = append(calls, acquiretest.Go(s, 3))
		synctest.Wait()
		calls = append(calls, acquiretest.Go(s, 1))
		synctest.Wait()
		requests, permits := s.Waiting()
		assert.Equal(t, 3, requests)
		assert.Equal(t, int64(5), permits)
		s.Resize(2)
		synctest.Wait()
		require.True(t, calls[1].Returned(), "a waiter larger than the new size still waits")
		require.ErrorIs(t, calls[1].Err, sem.ErrExceedsSize)
		assert.EqualError(t, calls[1].Err, "weighted: Acquire(3) can never succeed on a semaphore of size 2; ask for at most 2 permits: sem: request exceeds semaphore size")
		assert.False(t, calls[0].Returned())
		assert.False(t, calls[2].Returned())
		requests, permits = s.Waiting()
		assert.Equal(t, 2, requests)
		assert.Equal(t, int64(2), permits)
		s.Release(4)
		synctest.Wait()
		require.True(t, calls[0].Served())
		require.True(t, calls[2].Served())
		err := s.Acquire(context.Background(), 3)
		require.ErrorIs(t, err, sem.ErrExceedsSize, "a later Acquire above the new size")
		s.Release(2)
		for _, c := range calls {
			c.Cancel()
		}
	})
}

// Close fails every waiter, including one whose context can never be done,
// and every later Acquire or TryAcquire, even when permits are free; holders
// may still release.
func TestClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(2)
		require.True(t, s.TryAcquire(2))
		w := acquiretest.Go(s, 1)
		background := make(chan error, 1)
		go func() { background <- s.Acquire(context.Background(), 2) }()
		synctest.Wait()
		require.NoError(t, s.Close())
		synctest.Wait()
		require.True(t, w.Returned())
		require.ErrorIs(t, w.Err, sem.ErrClosed)
		assert.EqualError(t, w.Err, "weighted: Acquire(1): the semaphore was closed; no permit will be granted: sem: semaphore closed")
		require.ErrorIs(t, <-background, sem.ErrClosed)
		requests, _ := s.Waiting()
		assert.Zero(t, requests)

		s.Release(2)
		assert.Equal(t, int64(2), s.Available())
		assert.False(t, s.TryAcquire(1), "TryAcquire succeeded after Close")
		require.ErrorIs(t, s.Acquire(context.Background(), 1), sem.ErrClosed, "Acquire with free permits after Close")
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		require.ErrorIs(t, s.Acquire(ctx, 1), context.Canceled, "a done context comes first")
		require.NoError(t, s.Close(), "a second Close")
		assert.PanicsWithValue(t, "weighted: Release(1): released more than held (0 held)", func() { s.Release(1) })
		w.Cancel()
	})
}

// Closing a semaphore nobody waits on must close the fast paths too: its
// free permits are no longer for the taking.
func TestCloseIdle(t *testing.T) {
	s := weighted.New(2)
	require.NoError(t, s.Close())
	assert.False(t, s.TryAcquire(1), "TryAcquire took a free permit after Close")
	require.ErrorIs(t, s.Acquire(context.Background(), 1), sem.ErrClosed)
	assert.False(t, s.TryAcquire(0), "TryAcquire(0) after Close")
	require.ErrorIs(t, s.Acquire(context.Background(), 0), sem.ErrClosed, "Acquire(ctx, 0) after Close")
	assert.Equal(t, int64(2), s.Available())
}

// Resizes racing the lock-free paths must lose no permit: after every
// holder has released and the size is set back, all permits are free.
func TestResizeRacingFastPaths(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const size, workers, rounds = 4, 4, 20000
		s := weighted.New(size)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				n := int64(w%2 + 1)
				for range rounds {
					if s.TryAcquire(n) {
						s.Release(n)
					}
					ctx, cancel := context.WithCancel(context.Background())
					if s.Acquire(ctx, n) == nil {
						s.Release(n)
					}
					cancel()
				}
			})
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := range rounds {
				s.Resize(int64(i%5 + 2))
			}
		}()
		<-done
		s.Resize(size)
		wg.Wait()
		assert.Equal(t, int64(size), s.Available())
		requests, permits := s.Waiting()
		assert.Zero(t, requests)
		assert.Zero(t, permits)
	})
}
