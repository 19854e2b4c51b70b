package cancellation_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/docs/cancellation"
)

// A waiter whose condition never turns true returns when its deadline
// passes, with the deadline's error, and not a moment earlier: in the
// bubble the clock is simulated, so the hour costs nothing.
func TestWaitEndsAtTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		c := sync.NewCond(&mu)
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		defer cancel()
		start := time.Now()
		mu.Lock()
		err := cancellation.Wait(ctx, c, func() bool { return false })
		mu.Unlock()
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, time.Hour, time.Since(start))
	})
}

// A waiter whose condition turns true returns nil, woken by the Broadcast
// that follows the change; its context is never done.
func TestWaitReturnsWhenReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		c := sync.NewCond(&mu)
		ready := false
		done := make(chan error)
		go func() {
			mu.Lock()
			defer mu.Unlock()
			done <- cancellation.Wait(t.Context(), c, func() bool { return ready })
		}()
		synctest.Wait() // the waiter sleeps in c.Wait
		mu.Lock()
		ready = true
		c.Broadcast()
		mu.Unlock()
		require.NoError(t, <-done)
	})
}

// A cancellation that came first wins over a condition that turned true
// after it, before the waiter ran again.
func TestWaitCancellationFirstWins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		c := sync.NewCond(&mu)
		ready := false
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() {
			mu.Lock()
			defer mu.Unlock()
			done <- cancellation.Wait(ctx, c, func() bool { return ready })
		}()
		synctest.Wait()
		mu.Lock() // the waiter cannot run until Unlock
		cancel()
		ready = true
		mu.Unlock()
		require.ErrorIs(t, <-done, context.Canceled)
	})
}
