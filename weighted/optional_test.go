package weighted_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"

	"github.com/semacat/sem"
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
