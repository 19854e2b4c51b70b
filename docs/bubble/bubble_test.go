package bubble_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/weighted"
)

// Inside a bubble the clock is simulated: it starts at midnight UTC,
// 2000-01-01, and moves only when every goroutine of the bubble is blocked,
// straight to the next timer. A sleep of an hour takes no real time, and
// lasts exactly an hour on the bubble's clock.
func TestTheClockIsSimulated(t *testing.T) {
	realStart := time.Now()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		assert.True(t, start.Equal(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)), "the bubble's clock starts at %v", start)
		time.Sleep(time.Hour)
		assert.Equal(t, time.Hour, time.Since(start))
	})
	assert.Less(t, time.Since(realStart), time.Minute, "the hour was simulated")
}

// synctest.Wait returns once every other goroutine of the bubble is
// durably blocked: here, the waiter inside Acquire. The test can then
// assert what has not happened yet (the waiter has no permit), release,
// wait again, and assert what has.
func TestAcquireWaitsForRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := chansem.New(1)
		require.NoError(t, s.Acquire(t.Context(), 1))
		var got atomic.Bool
		go func() {
			if s.Acquire(t.Context(), 1) == nil {
				got.Store(true)
				s.Release(1)
			}
		}()
		synctest.Wait()
		assert.False(t, got.Load(), "the waiter went on while the permit was held")

		s.Release(1)
		synctest.Wait()
		assert.True(t, got.Load(), "the Release did not wake the waiter")
	})
}

// A deadline, tested to the nanosecond: a waiter with a minute to wait is
// served by a Release at 59 seconds, and a second waiter, whose minute
// passes before anyone releases, gets the deadline's error at exactly one
// minute, holding nothing.
func TestDeadlineToTheNanosecond(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(1)
		require.NoError(t, s.Acquire(t.Context(), 1))
		start := time.Now()
		type result struct {
			elapsed time.Duration
			err     error
		}
		wait := func() result {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			err := s.Acquire(ctx, 1)
			return result{time.Since(start), err}
		}
		first := make(chan result, 1)
		go func() { first <- wait() }()
		time.Sleep(59 * time.Second)
		s.Release(1) // in time for the first waiter
		r := <-first
		require.NoError(t, r.err)
		assert.Equal(t, 59*time.Second, r.elapsed)

		r = wait() // the first waiter holds the permit and never releases it
		require.ErrorIs(t, r.err, context.DeadlineExceeded)
		assert.Equal(t, 59*time.Second+time.Minute, r.elapsed)
		assert.Zero(t, s.Available())
		s.Release(1)
	})
}

// Waiters that the test forgets are caught: when the bubble's function
// returns, synctest.Test waits for every goroutine it started, and a
// goroutine that can never end (blocked on a semaphore nobody releases)
// makes it panic with "deadlock" instead of leaving it behind. Here the
// test cancels the waiter's context, so the bubble ends cleanly; the
// exercise of docs/synctest.md deletes the cancel and reads the panic.
func TestEveryWaiterEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := chansem.New(1)
		require.NoError(t, s.Acquire(t.Context(), 1))
		ctx, cancel := context.WithCancel(t.Context())
		errs := make(chan error, 1)
		go func() { errs <- s.Acquire(ctx, 1) }()
		synctest.Wait()
		cancel()
		require.ErrorIs(t, <-errs, context.Canceled)
	})
}
