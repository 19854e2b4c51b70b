package chansem_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/semtest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var (
	_ sem.Semaphore = (*chansem.Semaphore)(nil)
	_ sync.Locker   = (*chansem.Semaphore)(nil)
)

func TestConformance(t *testing.T) {
	semtest.Run(t, func(size int64) sem.Semaphore { return chansem.New(size) },
		semtest.Guarantees{UnitFIFO: true, NoStarvation: true, NoBarging: true})
}

func TestSizeAndAvailable(t *testing.T) {
	s := chansem.New(5)
	assert.Equal(t, int64(5), s.Size())
	assert.Equal(t, int64(5), s.Available())
	require.True(t, s.TryAcquire(3))
	assert.Equal(t, int64(2), s.Available())
	s.Release(3)
	assert.Equal(t, int64(5), s.Available())
}

func TestBadInputMessages(t *testing.T) {
	assert.PanicsWithValue(t, "chansem: New(0): size must be at least 1", func() { chansem.New(0) })
	s := chansem.New(2)
	assert.PanicsWithValue(t, "chansem: Acquire(-2): negative weight; the number of permits must be at least 0",
		func() { _ = s.Acquire(context.Background(), -2) })
	assert.PanicsWithValue(t, "chansem: Release(1): released more than held (0 held)", func() { s.Release(1) })
	assert.PanicsWithValue(t, "chansem: Unlock: released more than held (no permit held)", s.Unlock)

	err := s.Acquire(context.Background(), 3)
	require.ErrorIs(t, err, sem.ErrExceedsSize)
	assert.EqualError(t, err, "chansem: Acquire(3) can never succeed on a semaphore of size 2; ask for at most 2 permits: sem: request exceeds semaphore size")
}

// Lock and Unlock make a semaphore of size 1 a mutex.
func TestLocker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := chansem.New(1)
		s.Lock()
		locked := make(chan struct{})
		go func() {
			s.Lock()
			close(locked)
		}()
		synctest.Wait()
		select {
		case <-locked:
			t.Fatal("a second Lock succeeded while the first was held")
		default:
		}
		s.Unlock()
		synctest.Wait()
		select {
		case <-locked:
		default:
			t.Fatal("Unlock did not wake the waiting Lock")
		}
		s.Unlock()
		assert.Equal(t, int64(1), s.Available())
	})
}

// Multi-permit requests that wait together must not each gather part of
// what the other needs. With size 4 and two Acquire(3) waiting, freeing the
// permits one at a time would hand them out alternately, 2 and 2, and both
// would wait forever; one must complete instead.
func TestMultiPermitRequestsDoNotDeadlock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := chansem.New(4)
		require.True(t, s.TryAcquire(4))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var done [2]atomic.Bool
		for i := range done {
			go func() {
				if s.Acquire(ctx, 3) == nil {
					done[i].Store(true)
				}
			}()
			synctest.Wait()
		}
		for range 4 {
			s.Release(1)
			synctest.Wait()
		}
		first := -1
		for i := range done {
			if done[i].Load() {
				first = i
			}
		}
		require.NotEqual(t, -1, first, "neither Acquire(3) completed after 4 permits were freed: they split the permits between them")
		s.Release(3)
		synctest.Wait()
		assert.True(t, done[1-first].Load(), "the second Acquire(3) did not complete after the first released")
		s.Release(3)
		assert.Equal(t, int64(4), s.Available())
	})
}

// A canceled multi-permit Acquire gives back the permits it had gathered.
func TestCanceledGatherGivesBackPartialPermits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := chansem.New(3)
		require.True(t, s.TryAcquire(2))
		ctx, cancel := context.WithCancel(context.Background())
		var err error
		done := make(chan struct{})
		go func() {
			err = s.Acquire(ctx, 3)
			close(done)
		}()
		synctest.Wait()
		assert.Equal(t, int64(0), s.Available(), "the waiter should have gathered the one free permit")
		cancel()
		<-done
		require.True(t, errors.Is(err, context.Canceled), "err = %v", err)
		assert.Equal(t, int64(1), s.Available(), "the canceled waiter kept permits it had gathered")
		s.Release(2)
	})
}

// TryAcquire takes all the permits it asks for or none.
func TestTryAcquireAllOrNothing(t *testing.T) {
	s := chansem.New(4)
	require.True(t, s.TryAcquire(3))
	assert.False(t, s.TryAcquire(2))
	assert.Equal(t, int64(1), s.Available(), "a failed TryAcquire kept permits")
	s.Release(3)
}
