package chansem_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/internal/acquiretest"
)

var (
	_ sem.Closer   = (*chansem.Semaphore)(nil)
	_ sem.Observer = (*chansem.Semaphore)(nil)
)

// Close fails every waiter: single-permit ones, one whose context can never
// be done, one waiting for the gate and one gathering. Holders may still
// release, and the over-release check still counts what they hold.
func TestCloseFailsWaiters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := chansem.NewAvailable(3, 0)
		one := acquiretest.Go(s, 1)
		synctest.Wait()
		background := make(chan error, 1)
		go func() { background <- s.Acquire(context.Background(), 1) }()
		synctest.Wait()
		s.Release(1)
		synctest.Wait()
		require.True(t, one.Served())
		gathering := acquiretest.Go(s, 2) // the Background waiter is still parked
		synctest.Wait()
		gated := acquiretest.Go(s, 2)
		synctest.Wait()
		requests, permits := s.Waiting()
		assert.Equal(t, 3, requests)
		assert.Equal(t, int64(5), permits)

		require.NoError(t, s.Close())
		synctest.Wait()
		for _, c := range []*acquiretest.Call{gathering, gated} {
			require.True(t, c.Returned())
			require.ErrorIs(t, c.Err, sem.ErrClosed)
		}
		assert.EqualError(t, gated.Err, "chansem: Acquire(2): the semaphore was closed; no permit will be granted: sem: semaphore closed")
		require.ErrorIs(t, <-background, sem.ErrClosed)
		requests, permits = s.Waiting()
		assert.Zero(t, requests)
		assert.Zero(t, permits)
		assert.Equal(t, int64(0), s.Available(), "a failed gatherer kept slots")

		assert.PanicsWithValue(t, "chansem: Release(4): released more than held (3 held)", func() { s.Release(4) })
		s.Release(3)
		assert.Equal(t, int64(3), s.Available())
		assert.PanicsWithValue(t, "chansem: Release(1): released more than held (0 held)", func() { s.Release(1) })
		require.NoError(t, s.Close(), "a second Close")
		one.Cancel()
		gathering.Cancel()
		gated.Cancel()
	})
}

// After Close, every fast path fails even with every permit free, and gives
// back the slot it took; a done context still comes first.
func TestCloseFailsFastPaths(t *testing.T) {
	s := chansem.New(3)
	require.NoError(t, s.Close())
	require.ErrorIs(t, s.Acquire(context.Background(), 1), sem.ErrClosed)
	require.ErrorIs(t, s.Acquire(context.Background(), 2), sem.ErrClosed)
	assert.False(t, s.TryAcquire(1), "TryAcquire(1) after Close")
	assert.False(t, s.TryAcquire(2), "TryAcquire(2) after Close")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, s.Acquire(ctx, 1), context.Canceled)
	assert.False(t, s.TryAcquire(0), "TryAcquire(0) after Close")
	require.ErrorIs(t, s.Acquire(context.Background(), 0), sem.ErrClosed, "Acquire(ctx, 0) after Close")
	assert.Equal(t, int64(3), s.Available(), "a refused call kept a slot")
	requests, _ := s.Waiting()
	assert.Zero(t, requests)
}

// OnWait reports each Acquire that waited, single or multi-permit, with how
// long and how it ended, and never one that did not wait.
func TestOnWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := chansem.New(2)
		var mu sync.Mutex
		var events []sem.WaitEvent
		s.OnWait(func(e sem.WaitEvent) {
			mu.Lock()
			events = append(events, e)
			mu.Unlock()
		})
		require.NoError(t, s.Acquire(context.Background(), 2), "a multi-permit Acquire that does not wait")
		canceled := acquiretest.Go(s, 1)
		synctest.Wait()
		granted := acquiretest.Go(s, 2)
		synctest.Wait()
		time.Sleep(3 * time.Second)
		canceled.Cancel()
		synctest.Wait()
		time.Sleep(2 * time.Second)
		s.Release(2)
		synctest.Wait()
		require.True(t, granted.Served())
		require.NoError(t, s.Acquire(context.Background(), 0))

		mu.Lock()
		require.Len(t, events, 2)
		assert.Equal(t, int64(1), events[0].N)
		assert.ErrorIs(t, events[0].Err, context.Canceled)
		assert.Equal(t, 3*time.Second, events[0].Waited())
		assert.Equal(t, int64(2), events[1].N)
		assert.NoError(t, events[1].Err)
		assert.Equal(t, 5*time.Second, events[1].Waited())
		mu.Unlock()

		s.OnWait(nil)
		w := acquiretest.Go(s, 1)
		synctest.Wait()
		s.Release(2)
		synctest.Wait()
		require.True(t, w.Served())
		assert.Len(t, events, 2, "a function removed by OnWait(nil) was called")
		s.Release(1)
		canceled.Cancel()
		granted.Cancel()
		w.Cancel()
	})
}

// NewAvailable(1, 0) is a signalling semaphore, and the permits it starts
// without count as held: they may be released once, and no more.
func TestNewAvailable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := chansem.NewAvailable(1, 0)
		assert.Equal(t, int64(0), s.Available())
		w := acquiretest.Go(s, 1)
		synctest.Wait()
		require.False(t, w.Returned(), "Acquire did not wait for the signal")
		s.Release(1)
		synctest.Wait()
		require.True(t, w.Served())
		w.Cancel()

		s = chansem.NewAvailable(3, 1)
		s.Release(2)
		assert.Equal(t, int64(3), s.Available())
		assert.PanicsWithValue(t, "chansem: Release(1): released more than held (0 held)", func() { s.Release(1) })
	})
	assert.PanicsWithValue(t, "chansem: NewAvailable(2, 3): available must be between 0 and the size", func() { chansem.NewAvailable(2, 3) })
	assert.PanicsWithValue(t, "chansem: NewAvailable(0, 0): size must be at least 1", func() { chansem.NewAvailable(0, 0) })
}
