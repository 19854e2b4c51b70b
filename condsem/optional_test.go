package condsem_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem"
	"github.com/semacat/sem/condsem"
	"github.com/semacat/sem/internal/acquiretest"
)

// optional is what both variants offer beyond the contract.
type optional interface {
	semaphore
	sem.Resizer
	sem.Closer
	sem.Observer
}

var optionals = []struct {
	name         string
	newAvailable func(size, available int64) optional
}{
	{"plain", func(size, available int64) optional { return condsem.NewAvailable(size, available) }},
	{"fair", func(size, available int64) optional { return condsem.NewFairAvailable(size, available) }},
}

// forEach runs test in a synctest bubble for each variant.
func forEach(t *testing.T, test func(t *testing.T, newAvailable func(size, available int64) optional)) {
	for _, v := range optionals {
		t.Run(v.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { test(t, v.newAvailable) })
		})
	}
}

// Growing wakes a waiter that now fits, and only then.
func TestResizeGrow(t *testing.T) {
	forEach(t, func(t *testing.T, newAvailable func(size, available int64) optional) {
		s := newAvailable(2, 0)
		w := acquiretest.Go(s, 2)
		synctest.Wait()
		s.Resize(3)
		synctest.Wait()
		assert.False(t, w.Returned(), "served with one permit free")
		s.Resize(4)
		synctest.Wait()
		require.True(t, w.Served(), "the grow did not serve the waiter that now fits")
		assert.Equal(t, int64(4), s.Size())
		assert.Equal(t, int64(0), s.Available())
		s.Release(4)
		w.Cancel()
	})
}

// Shrinking revokes nothing: nothing is granted until the holders have given
// back what exceeds the new size, and the over-release check counts what is
// really held.
func TestResizeShrinkKeepsHolders(t *testing.T) {
	forEach(t, func(t *testing.T, newAvailable func(size, available int64) optional) {
		s := newAvailable(4, 1)
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
		assert.PanicsWithValue(t, "condsem: Release(3): released more than held (2 held)", func() { s.Release(3) })
		s.Release(2)
		assert.True(t, s.TryAcquire(2))
		assert.False(t, s.TryAcquire(1))
		s.Release(2)
		w.Cancel()
	})
}

// A waiting request larger than the new size fails, and the others keep
// waiting and are served.
func TestResizeFailsLargerWaiters(t *testing.T) {
	forEach(t, func(t *testing.T, newAvailable func(size, available int64) optional) {
		s := newAvailable(4, 0)
		var calls []*acquiretest.Call
		for _, n := range []int64{1, 3, 1} {
			calls = append(calls, acquiretest.Go(s, n))
			synctest.Wait()
		}
		requests, permits := s.Waiting()
		assert.Equal(t, 3, requests)
		assert.Equal(t, int64(5), permits)
		s.Resize(2)
		synctest.Wait()
		require.True(t, calls[1].Returned(), "a waiter larger than the new size still waits")
		require.ErrorIs(t, calls[1].Err, sem.ErrExceedsSize)
		assert.EqualError(t, calls[1].Err, "condsem: Acquire(3) can never succeed on a semaphore of size 2; ask for at most 2 permits: sem: request exceeds semaphore size")
		assert.False(t, calls[0].Returned())
		assert.False(t, calls[2].Returned())
		requests, permits = s.Waiting()
		assert.Equal(t, 2, requests)
		assert.Equal(t, int64(2), permits)
		s.Release(4)
		synctest.Wait()
		require.True(t, calls[0].Served())
		require.True(t, calls[2].Served())
		require.ErrorIs(t, s.Acquire(context.Background(), 3), sem.ErrExceedsSize)
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
	forEach(t, func(t *testing.T, newAvailable func(size, available int64) optional) {
		s := newAvailable(2, 0)
		w := acquiretest.Go(s, 1)
		background := make(chan error, 1)
		go func() { background <- s.Acquire(context.Background(), 2) }()
		synctest.Wait()
		require.NoError(t, s.Close())
		synctest.Wait()
		require.True(t, w.Returned())
		require.ErrorIs(t, w.Err, sem.ErrClosed)
		assert.EqualError(t, w.Err, "condsem: Acquire(1): the semaphore was closed; no permit will be granted: sem: semaphore closed")
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
		assert.False(t, s.TryAcquire(0), "TryAcquire(0) after Close")
		require.ErrorIs(t, s.Acquire(context.Background(), 0), sem.ErrClosed, "Acquire(ctx, 0) after Close")
		s.Resize(3)
		assert.False(t, s.TryAcquire(1), "a Resize reopened a closed semaphore")
		assert.PanicsWithValue(t, "condsem: Release(1): released more than held (0 held)", func() { s.Release(1) })
		w.Cancel()
	})
}
