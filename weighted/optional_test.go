package weighted_test

import (
	"context"
	"math"
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

// A Resize computes the state word from a copy and stores it at the end;
// in between the fast paths must be closed, or the store would overwrite
// permits that a TryAcquire took meanwhile. Yet a TryAcquire that meets
// the slow bit then, with its permits free and nobody waiting, must not
// fail: it waits for the mutex and decides after the store. The frozen
// hook starts a TryAcquire inside the Resize's critical section and holds
// the Resize until that TryAcquire has seen the bit.
func TestResizeClosesFastPathsUntilStored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(4)
		require.True(t, s.TryAcquire(1))
		seen := make(chan struct{})
		s.SetTestHookTrySlow(func() { close(seen) })
		var took bool
		returned := make(chan struct{})
		fired := false
		s.SetTestHookFrozen(func() {
			if fired {
				return
			}
			fired = true
			go func() {
				defer close(returned)
				took = s.TryAcquire(1)
			}()
			<-seen
		})
		s.Resize(6)
		<-returned
		require.True(t, fired)
		require.True(t, took, "TryAcquire(1) failed during a Resize with permits free and nobody waiting")
		n, _ := s.Waiting()
		assert.Zero(t, n)
		assert.Equal(t, int64(4), s.Available(), "the Resize's store lost or duplicated the TryAcquire's permit")
	})
}

func TestWaitingSaturates(t *testing.T) {
	acquiretest.WaitingSaturates(t, func() interface {
		sem.Semaphore
		sem.Observer
	} {
		return weighted.NewAvailable(math.MaxInt64, 0)
	})
}
