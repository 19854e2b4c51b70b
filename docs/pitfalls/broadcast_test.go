package pitfalls_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"golang.org/x/sync/semaphore"

	"github.com/semacat/sem"
)

// broadcastSem is the textbook condition-variable semaphore: every Release
// broadcasts, every waiter wakes and checks whether its request fits now.
type broadcastSem struct {
	mu   sync.Mutex
	cond *sync.Cond
	free int64
}

func newBroadcastSem(size int64) *broadcastSem {
	s := &broadcastSem{free: size}
	s.cond = sync.NewCond(&s.mu)
	return s
}

func (s *broadcastSem) Acquire(ctx context.Context, n int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	// sync.Cond knows nothing of contexts: wake everyone when ctx is done,
	// so that this waiter can notice.
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer stop()
	for s.free < n {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.cond.Wait()
	}
	s.free -= n
	return nil
}

func (s *broadcastSem) TryAcquire(n int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.free < n {
		return false
	}
	s.free -= n
	return true
}

func (s *broadcastSem) Release(n int64) {
	s.mu.Lock()
	s.free += n
	s.mu.Unlock()
	s.cond.Broadcast()
}

// acquireAllWhileCycling lets two goroutines take turns with one permit each
// on a semaphore of size 2, staggered so that one of them always holds a
// permit, and meanwhile asks for both permits. It returns how that request
// ended.
func acquireAllWhileCycling(s sem.Semaphore) error {
	const hold = 10 * time.Millisecond
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			time.Sleep(time.Duration(i) * hold / 2)
			for ctx.Err() == nil {
				if s.Acquire(ctx, 1) != nil {
					return
				}
				time.Sleep(hold)
				s.Release(1)
			}
		})
	}
	time.Sleep(hold + hold/5) // between two releases

	big, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := s.Acquire(big, 2)
	if err == nil {
		s.Release(2)
	}
	stop()
	wg.Wait()
	return err
}

// Broadcast wakes every waiter, but waking is not being served: the big
// request wakes at each release, finds one permit, and sleeps again, while the
// cyclers take turns past it. With a FIFO queue (x/sync's Weighted) the
// cyclers line up behind it and it is served at the next release.
func TestBroadcastIsNotFair(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		assert.ErrorIs(t, acquireAllWhileCycling(newBroadcastSem(2)), context.DeadlineExceeded,
			"broadcast: the request for both permits starves")
		assert.NoError(t, acquireAllWhileCycling(semaphore.NewWeighted(2)),
			"FIFO: the request for both permits is served")
	})
}
