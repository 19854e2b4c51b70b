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

var _ sem.Observer = (*chansem.Semaphore)(nil)

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
