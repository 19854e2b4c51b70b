package intro_test

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/weighted"
)

// Acquire on a semaphore with nothing free waits, for as long as it takes,
// until someone releases: the waiting is what makes the signal a signal.
// In the bubble the clock is simulated, so "an hour" costs nothing.
func TestSignalWaitsForTheRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		done := weighted.NewAvailable(1, 0)
		var received atomic.Bool
		go func() {
			require.NoError(t, done.Acquire(t.Context(), 1))
			received.Store(true)
		}()
		time.Sleep(time.Hour)
		synctest.Wait()
		assert.False(t, received.Load(), "the waiter went on without the signal")

		done.Release(1)
		synctest.Wait()
		assert.True(t, received.Load(), "the signal did not wake the waiter")
	})
}

// The binary semaphore admits one holder at a time: while one goroutine
// holds it, a second waits, and it gets in as soon as the first releases.
func TestBinarySemaphoreAdmitsOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mutex := weighted.New(1)
		require.NoError(t, mutex.Acquire(t.Context(), 1))
		var second atomic.Bool
		go func() {
			require.NoError(t, mutex.Acquire(t.Context(), 1))
			second.Store(true)
			mutex.Release(1)
		}()
		synctest.Wait()
		assert.False(t, second.Load(), "two holders of a binary semaphore")
		mutex.Release(1)
		synctest.Wait()
		assert.True(t, second.Load())
	})
}

// V on a bounded semaphore cannot pile up permits nobody took: a Release
// that would raise the count of free permits past the size panics. A
// semaphore made with NewAvailable(1, 0) counts its missing permit as held
// by nobody, so its first Release succeeds without any Acquire, and its
// second panics, changing nothing.
func TestReleaseBeyondTheSizePanics(t *testing.T) {
	s := weighted.New(1)
	assert.Panics(t, func() { s.Release(1) })
	assert.Equal(t, int64(1), s.Available())

	signal := weighted.NewAvailable(1, 0)
	require.NotPanics(t, func() { signal.Release(1) }, "the first V of a semaphore initialized to zero")
	assert.Equal(t, int64(1), signal.Available())
	assert.Panics(t, func() { signal.Release(1) })
	assert.Equal(t, int64(1), signal.Available())
}
