package spinsem_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/acquiretest"
	"github.com/semacat/sem/spinsem"
)

var (
	_ sem.Resizer  = (*spinsem.Semaphore)(nil)
	_ sem.Closer   = (*spinsem.Semaphore)(nil)
	_ sem.Observer = (*spinsem.Semaphore)(nil)
)

// Growing serves the queue as a Release would: the head is woken, takes its
// permits and wakes the next one that fits.
func TestResizeGrowServesWaiters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := exhausted(t, 1)
		first := parked(s, 1)
		second := parked(s, 1)
		require.Equal(t, spinsem.Mode{Waiting: true, Queued: 2}, s.Mode())

		s.Resize(3)
		synctest.Wait()
		assert.True(t, first.Served(), "the head was not served by the new permits")
		assert.True(t, second.Served(), "the head did not pass the wake-up on")
		assert.Equal(t, int64(3), s.Size())
		assert.Equal(t, spinsem.Mode{}, s.Mode())
		s.Release(3)
		assert.Equal(t, spinsem.Mode{Free: 3}, s.Mode())
	})
}

// In starvation mode the new permits are handed to the waiters in queue
// order: the large head first, although the small one behind it fitted
// sooner.
func TestResizeGrowHandsOffInOrderWhenStarving(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := exhausted(t, 2)
		large := parked(s, 2)
		time.Sleep(2 * spinsem.StarvationThreshold)
		small := parked(s, 1)
		s.Release(1)
		synctest.Wait()
		require.Equal(t, spinsem.Mode{Free: 1, Starving: true, Waiting: true, Queued: 2}, s.Mode())

		s.Resize(3) // 2 free: the head's 2, none left for the small one
		synctest.Wait()
		assert.True(t, large.Served(), "the new permits were not handed to the starving head")
		assert.False(t, small.Returned(), "the small waiter passed the head")
		s.Release(1)
		synctest.Wait()
		assert.True(t, small.Served())
		s.Release(3)
		assert.Equal(t, spinsem.Mode{Free: 3}, s.Mode())
	})
}

// Shrinking revokes nothing: the free permits go below zero and nothing is
// free until enough come back; then the smaller size holds.
func TestResizeShrinkKeepsHeldPermits(t *testing.T) {
	s := spinsem.New(4)
	require.True(t, s.TryAcquire(3))
	s.Resize(2)
	assert.Equal(t, int64(2), s.Size())
	assert.Equal(t, spinsem.Mode{Free: -1}, s.Mode())
	assert.Equal(t, int64(-1), s.Available(), "Available is the size minus the held permits")
	assert.False(t, s.TryAcquire(1), "a permit was free while 3 of 2 were held")
	s.Release(1)
	assert.False(t, s.TryAcquire(1), "a permit was free while 2 of 2 were held")
	s.Release(1)
	require.True(t, s.TryAcquire(1))
	assert.False(t, s.TryAcquire(1))
	assert.PanicsWithValue(t, "spinsem: Release(3): released more than held (2 held)", func() { s.Release(3) })
	s.Release(2)
	assert.Equal(t, spinsem.Mode{Free: 2}, s.Mode())
	err := s.Acquire(context.Background(), 3)
	assert.ErrorIs(t, err, sem.ErrExceedsSize)
}

// A waiting request larger than the new size fails at once, with the size
// in its message, whether it was parked at the head or woken on its way;
// the smaller waiters behind it keep their places and are served.
func TestResizeShrinkFailsLargerWaiters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := exhausted(t, 4)
		large := parked(s, 3)
		small := parked(s, 1)
		require.Equal(t, 2, s.Mode().Queued)

		s.Resize(2)
		synctest.Wait()
		require.True(t, large.Returned(), "the waiter larger than the new size still waits")
		require.ErrorIs(t, large.Err, sem.ErrExceedsSize)
		assert.EqualError(t, large.Err, "spinsem: Acquire(3) on size 2: sem: request exceeds semaphore size")
		assert.False(t, small.Returned())
		assert.Equal(t, spinsem.Mode{Free: -2, Waiting: true, Queued: 1}, s.Mode())

		s.Release(3) // 1 of 2 held now: the small waiter fits
		synctest.Wait()
		assert.True(t, small.Served())
		s.Release(2)
		assert.Equal(t, spinsem.Mode{Free: 2}, s.Mode())
	})
}

// A woken waiter that a shrink fails, before it has run, returns the error,
// and the woken flag it stood for is cleared so that the next waiter is
// served. The park hook holds the first waiter just before it blocks while
// the test wakes it and shrinks.
func TestResizeShrinkFailsWokenWaiter(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := exhausted(t, 4)
		hold := holdFirstPark(s)
		woken := parked(s, 3)
		behind := parked(s, 1)
		s.Release(3)
		require.True(t, s.Mode().Woken, "the Release did not wake the head")
		s.Resize(2) // 1 held: 1 free, which the waiter behind fits in
		close(hold.proceed)
		synctest.Wait()
		require.True(t, woken.Returned())
		assert.ErrorIs(t, woken.Err, sem.ErrExceedsSize)
		assert.True(t, behind.Served(), "the waiter behind the failed woken one was not served")
		assert.Equal(t, spinsem.Mode{}, s.Mode())
		s.Release(2)
		assert.Equal(t, spinsem.Mode{Free: 2}, s.Mode())
	})
}

// exhausted returns a semaphore of size permits, all held.
func exhausted(t *testing.T, size int64) *spinsem.Semaphore {
	t.Helper()
	s := spinsem.New(size)
	require.True(t, s.TryAcquire(size))
	return s
}

// parked starts Acquire(s, n) and returns once it has parked (or returned).
func parked(s *spinsem.Semaphore, n int64) *acquiretest.Call {
	c := acquiretest.Go(s, n)
	synctest.Wait()
	return c
}

// parkHold holds the first Acquire that parks just before it blocks,
// already queued, until proceed is closed.
type parkHold struct {
	proceed chan struct{}
	parks   int // how many Acquire calls reached the park hook
}

// holdFirstPark installs a parkHold on s.
func holdFirstPark(s *spinsem.Semaphore) *parkHold {
	hold := &parkHold{proceed: make(chan struct{})}
	s.SetTestHookPark(func() {
		if hold.parks++; hold.parks == 1 {
			<-hold.proceed
		}
	})
	return hold
}

// Resizes racing with weighted Acquire and Release calls, which spin, park,
// are failed by a shrink or time out, and then a Close, which half of them,
// without a deadline, may be parked for when it comes: an honest Release
// never panics (the size and the free permits are read as one snapshot, or
// read again under the mutex), every Acquire returns, each with nil or one
// of the errors it may have, and no permit is lost.
func TestResizeAndCloseRaceAcquireAndRelease(t *testing.T) {
	s := spinsem.New(4)
	var wg sync.WaitGroup
	var granted, exceeded, timedOut, waitedExceeded atomic.Int64
	s.OnWait(func(e sem.WaitEvent) {
		if errors.Is(e.Err, sem.ErrExceedsSize) {
			waitedExceeded.Add(1) // failed by a shrink while it spun or parked
		}
	})
	for g := range 6 {
		wg.Go(func() {
			for i := 0; ; i++ {
				n := int64(1 + (g+i)%3)
				ctx, cancel := context.WithCancel(context.Background())
				if g%2 == 0 { // the others wait until served or failed
					ctx, cancel = context.WithTimeout(ctx, time.Duration(i%50)*time.Microsecond)
				}
				err := s.Acquire(ctx, n)
				cancel()
				switch {
				case err == nil:
					granted.Add(1)
					s.Release(n)
				case errors.Is(err, sem.ErrClosed):
					return
				case errors.Is(err, sem.ErrExceedsSize):
					exceeded.Add(1)
				case errors.Is(err, context.DeadlineExceeded):
					timedOut.Add(1)
				default:
					t.Errorf("Acquire(%d): unexpected error %v", n, err)
					return
				}
			}
		})
	}
	// Resize until every outcome has been seen often: each is a branch the
	// test means to reach.
	for i := 0; granted.Load() < 2000 || exceeded.Load() < 200 || timedOut.Load() < 20 || waitedExceeded.Load() < 20; i++ {
		s.Resize(int64(1 + i*7%8))
		runtime.Gosched()
	}
	// Hold the one permit so that waiters stay parked, and close once
	// several are: those without a deadline can only leave through Close.
	s.Resize(1)
	require.NoError(t, s.Acquire(context.Background(), 1))
	for requests, _ := s.Waiting(); requests < 3; requests, _ = s.Waiting() {
		runtime.Gosched()
	}
	require.NoError(t, s.Close())
	wg.Wait()
	s.Release(1)
	s.Resize(4)
	assert.Equal(t, spinsem.Mode{Free: 4, Closed: true}, s.Mode(), "permits were lost or made up")
	t.Logf("granted %d, exceeded %d (%d after waiting), timed out %d",
		granted.Load(), exceeded.Load(), waitedExceeded.Load(), timedOut.Load())
}

func TestResizeBadInput(t *testing.T) {
	s := spinsem.New(2)
	assert.PanicsWithValue(t, "spinsem: Resize(0): size must be at least 1", func() { s.Resize(0) })
	assert.PanicsWithValue(t, "spinsem: Resize(35184372088832): size must be at most 35184372088831",
		func() { s.Resize(spinsem.MaxSize + 1) })
	assert.Equal(t, spinsem.Mode{Free: 2}, s.Mode())
}

// Close fails every parked waiter and every later Acquire, also one that
// finds permits free; TryAcquire reports false; Release is still accepted
// and the over-release rule still holds; a done context still wins.
func TestCloseFailsWaitersAndLaterAcquires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := exhausted(t, 2)
		one := parked(s, 1)
		two := parked(s, 2)
		require.Equal(t, 2, s.Mode().Queued)

		require.NoError(t, s.Close())
		synctest.Wait()
		for _, c := range []*acquiretest.Call{one, two} {
			require.True(t, c.Returned(), "a parked Acquire(%d) still waits after Close", c.N)
			assert.ErrorIs(t, c.Err, sem.ErrClosed)
		}
		assert.EqualError(t, one.Err, "spinsem: Acquire(1): sem: semaphore closed")
		assert.Equal(t, spinsem.Mode{Closed: true}, s.Mode())

		s.Release(1)
		assert.False(t, s.TryAcquire(1), "TryAcquire took a free permit after Close")
		assert.ErrorIs(t, s.Acquire(context.Background(), 1), sem.ErrClosed, "Acquire took a free permit after Close")
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		assert.ErrorIs(t, s.Acquire(ctx, 1), context.Canceled, "a done context did not win over Close")
		assert.NoError(t, s.Close(), "a second Close")
		assert.PanicsWithValue(t, "spinsem: Release(2): released more than held (1 held)", func() { s.Release(2) })
		s.Release(1)
		assert.Equal(t, spinsem.Mode{Free: 2, Closed: true}, s.Mode())
	})
}

// Close with a woken waiter on its way and another parked behind it: every
// flag that describes the queue is cleared, and the woken waiter fails too.
// The park hook holds the first waiter just before it blocks while the test
// wakes it and closes.
func TestCloseClearsQueueFlags(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := exhausted(t, 2)
		hold := holdFirstPark(s)
		woken := parked(s, 1)
		large := parked(s, 2)
		s.Release(1) // wakes the head, which is held before it runs
		require.Equal(t, spinsem.Mode{Free: 1, Woken: true, Waiting: true, Queued: 2}, s.Mode())
		require.NoError(t, s.Close())
		close(hold.proceed)
		synctest.Wait()
		for _, c := range []*acquiretest.Call{woken, large} {
			require.True(t, c.Returned(), "Acquire(%d) still waits after Close", c.N)
			assert.ErrorIs(t, c.Err, sem.ErrClosed)
		}
		assert.Equal(t, spinsem.Mode{Free: 1, Closed: true}, s.Mode())
		s.Release(1)
	})
}

// A spinning Acquire stops at its next round when the semaphore is closed,
// and fails.
func TestCloseStopsSpinner(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := exhausted(t, 1)
		s.SetProcs(2)
		rounds := 0
		s.SetSpinHook(func() {
			if rounds++; rounds == 1 {
				require.NoError(t, s.Close())
			}
		})
		err := s.Acquire(context.Background(), 1)
		assert.ErrorIs(t, err, sem.ErrClosed)
		assert.Equal(t, 1, rounds, "the Acquire kept spinning after Close")
		assert.Equal(t, spinsem.Mode{Closed: true}, s.Mode())
		s.Release(1)
	})
}

func TestNewAvailableBadInput(t *testing.T) {
	assert.PanicsWithValue(t, "spinsem: NewAvailable(0, 0): size must be at least 1",
		func() { spinsem.NewAvailable(0, 0) })
	assert.PanicsWithValue(t, "spinsem: NewAvailable(35184372088832, 0): size must be at most 35184372088831",
		func() { spinsem.NewAvailable(spinsem.MaxSize+1, 0) })
	assert.PanicsWithValue(t, "spinsem: NewAvailable(2, -1): available must be between 0 and the size",
		func() { spinsem.NewAvailable(2, -1) })
	assert.PanicsWithValue(t, "spinsem: NewAvailable(2, 3): available must be between 0 and the size",
		func() { spinsem.NewAvailable(2, 3) })
}

// MaxSize is written as a literal, so that its documentation shows its value;
// it must stay what the state word's layout gives, and the doc's figures
// with it.
func TestMaxSizeLiteral(t *testing.T) {
	assert.Equal(t, int64(spinsem.MaxSizeDerived), int64(spinsem.MaxSize))
	assert.Equal(t, 18, spinsem.PermitShift, "MaxSize's doc counts 18 bits of flags and counters")
	assert.Equal(t, int64(1)<<45-1, int64(spinsem.MaxSize), "MaxSize's doc says 2^45-1")
}
