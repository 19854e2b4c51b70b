package spinsem_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/acquiretest"
	"github.com/semacat/sem/semtest"
	"github.com/semacat/sem/spinsem"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var _ sem.Semaphore = (*spinsem.Semaphore)(nil)

// Barging in normal mode rules out FIFO and NoBarging; starvation mode
// gives NoStarvation.
func TestConformance(t *testing.T) {
	semtest.Run(t, func(size int64) sem.Semaphore { return spinsem.New(size) },
		semtest.Guarantees{NoStarvation: true})
}

// TestConformanceNewAvailable runs the suite again with the NewAvailable
// constructor, so that its rows run too.
func TestConformanceNewAvailable(t *testing.T) {
	acquiretest.ConformanceNewAvailable(t, func(size int64) sem.Semaphore { return spinsem.New(size) },
		semtest.Guarantees{NoStarvation: true},
		func(size, available int64) sem.Semaphore { return spinsem.NewAvailable(size, available) })
}

// The largest size fits the state word; an over-release of MaxInt64 is
// refused, naming what is held, rather than wrapping the count.
func TestMaxSize(t *testing.T) {
	big := spinsem.New(spinsem.MaxSize)
	require.True(t, big.TryAcquire(spinsem.MaxSize))
	assert.Equal(t, int64(0), big.Available())
	assert.PanicsWithValue(t, "spinsem: Release(9223372036854775807): released more than held (35184372088831 held)",
		func() { big.Release(1<<63 - 1) })
	big.Release(spinsem.MaxSize)
	assert.Equal(t, int64(spinsem.MaxSize), big.Available())
}

func TestBadInputMessages(t *testing.T) {
	acquiretest.CheckBadInputMessages(t, "spinsem", "New", func(size int64) sem.Semaphore { return spinsem.New(size) })
	assert.PanicsWithValue(t, "spinsem: New(35184372088832): size must be at most 35184372088831",
		func() { spinsem.New(spinsem.MaxSize + 1) })
}

// Starvation mode, step by step: entered when a Release finds that the head
// of the queue, which has waited over 1ms, does not fit; it stops barging,
// hands permits to the head in queue order, and ends when a handoff goes to
// a waiter that waited less than 1ms.
func TestStarvationModeEntryAndExit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := exhausted(t, 2)
		large := parked(s, 2)
		time.Sleep(spinsem.StarvationThreshold + time.Microsecond)
		small := parked(s, 1)
		next := parked(s, 2)
		require.Equal(t, spinsem.Mode{Waiting: true, Queued: 3}, s.Mode())

		s.Release(1)
		synctest.Wait()
		assert.Equal(t, spinsem.Mode{Free: 1, Starving: true, Waiting: true, Queued: 3}, s.Mode(),
			"the head (Acquire(2)) has waited over 1ms and does not fit: starvation mode")
		assert.False(t, s.TryAcquire(1), "TryAcquire barged in starvation mode")

		s.Release(1)
		synctest.Wait()
		require.True(t, large.Served(), "the 2 free permits were not handed to the starving head")
		assert.Equal(t, spinsem.Mode{Starving: true, Waiting: true, Queued: 2}, s.Mode(),
			"the head waited over 1ms and others wait: starvation mode continues")

		s.Release(2) // on behalf of large: 1 is handed to small, which waited under 1ms
		synctest.Wait()
		require.True(t, small.Served())
		assert.Equal(t, spinsem.Mode{Free: 1, Waiting: true, Queued: 1}, s.Mode(),
			"a handoff to a waiter that waited under 1ms ends starvation mode")
		require.True(t, s.TryAcquire(1), "barging is allowed again in normal mode")
		s.Release(1)

		s.Release(1) // on behalf of small
		synctest.Wait()
		assert.True(t, next.Served(), "in normal mode, the head is woken once it fits")
		assert.Equal(t, spinsem.Mode{}, s.Mode())
		s.Release(2)
		assert.Equal(t, spinsem.Mode{Free: 2}, s.Mode())
	})
}

// Before the head has waited 1ms the semaphore stays in normal mode, where
// arrivals may barge.
func TestNoStarvationModeBeforeThreshold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := exhausted(t, 2)
		large := parked(s, 2)
		time.Sleep(spinsem.StarvationThreshold - time.Microsecond)
		s.Release(1)
		synctest.Wait()
		assert.Equal(t, spinsem.Mode{Free: 1, Waiting: true, Queued: 1}, s.Mode())
		require.True(t, s.TryAcquire(1), "in normal mode TryAcquire takes free permits even while others wait")
		s.Release(2)
		synctest.Wait()
		require.True(t, large.Served())
		s.Release(2)
		assert.Equal(t, spinsem.Mode{Free: 2}, s.Mode())
	})
}

// A woken waiter that loses the race to a barging arrival stays at the front
// of the queue, ahead of those that came after it; if it had waited over the
// starvation threshold, it switches the semaphore to starvation mode. The
// hook holds the first waiter just before it blocks, queued, while the test
// waits, frees the permit (which wakes the waiter) and takes it back with
// TryAcquire; only then does the waiter run and find its wake-up.
func TestWokenWaiterThatLosesStaysAtFront(t *testing.T) {
	t.Parallel()
	for _, wait := range []time.Duration{0, spinsem.StarvationThreshold + time.Microsecond} {
		t.Run("waited="+wait.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := exhausted(t, 1)
				hold := holdFirstPark(s)
				first := parked(s, 1)
				require.Equal(t, 1, hold.parks, "the first Acquire did not park")
				time.Sleep(wait)
				s.Release(1)
				require.True(t, s.TryAcquire(1), "TryAcquire did not take the permit from the woken waiter")
				close(hold.proceed)
				synctest.Wait()
				require.False(t, first.Returned())
				second := parked(s, 1)
				require.False(t, second.Returned())
				mode := s.Mode()
				assert.Equal(t, wait > spinsem.StarvationThreshold, mode.Starving, "starvation mode after a waiter of %v lost a race", wait)
				assert.Equal(t, 2, mode.Queued)
				s.Release(1)
				synctest.Wait()
				assert.True(t, first.Served(), "the waiter that lost was not served before the one that arrived after it")
				assert.False(t, second.Returned())
				s.Release(1)
				synctest.Wait()
				assert.True(t, second.Served())
				s.Release(1)
				assert.Equal(t, spinsem.Mode{Free: 1}, s.Mode())
			})
		})
	}
}

// In starvation mode arrivals neither barge nor spin: they queue at the
// tail, behind the starving head.
func TestStarvationModeArrivalsQueue(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var spun atomic.Int32
		s := exhausted(t, 2)
		s.SetProcs(2)
		s.SetSpinHook(func() { spun.Add(1) })
		large := parked(s, 2)
		spun.Store(0)
		time.Sleep(2 * spinsem.StarvationThreshold)
		s.Release(1)
		synctest.Wait()
		require.True(t, s.Mode().Starving)
		late := parked(s, 1)
		assert.False(t, late.Returned(), "an Acquire(1) barged in starvation mode")
		assert.Zero(t, spun.Load(), "an arrival spun in starvation mode")
		s.Release(1)
		synctest.Wait()
		assert.True(t, large.Served())
		assert.False(t, late.Returned(), "the arrival passed the starving head")
		s.Release(2)
		synctest.Wait()
		assert.True(t, late.Served())
		s.Release(1)
		assert.Equal(t, spinsem.Mode{Free: 2}, s.Mode())
	})
}

// A done context stops a spinning Acquire at the next round, with nothing
// acquired and the semaphore unchanged.
func TestCancelWhileSpinning(t *testing.T) {
	t.Parallel()
	synctest.Test(t, testCancelWhileSpinning)
}

func testCancelWhileSpinning(t *testing.T) {
	s := exhausted(t, 1)
	s.SetProcs(2)
	ctx, cancel := context.WithCancel(context.Background())
	rounds := 0
	s.SetSpinHook(func() {
		rounds++
		if rounds == 2 {
			cancel()
		}
	})
	err := s.Acquire(ctx, 1)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 2, rounds, "Acquire kept spinning after its context was canceled")
	assert.Equal(t, spinsem.Mode{}, s.Mode(), "a canceled spinner changed the state")
	s.Release(1)
	assert.Equal(t, spinsem.Mode{Free: 1}, s.Mode())
}

// Permits freed while an Acquire spins are taken by it, without parking.
func TestSpinAcquires(t *testing.T) {
	t.Parallel()
	synctest.Test(t, testSpinAcquires)
}

func testSpinAcquires(t *testing.T) {
	s := exhausted(t, 3)
	s.SetProcs(2)
	rounds := 0
	s.SetSpinHook(func() {
		rounds++
		if rounds == 2 {
			s.Release(2)
		}
	})
	require.NoError(t, s.Acquire(context.Background(), 2))
	assert.Equal(t, 2, rounds)
	assert.Equal(t, spinsem.Mode{}, s.Mode())
	s.Release(3)
}

// With one processor the holder cannot run while we spin: do not spin.
func TestNoSpinOnOneProcessor(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var spun atomic.Int32
		s := exhausted(t, 1)
		s.SetProcs(1)
		s.SetSpinHook(func() { spun.Add(1) })
		a := parked(s, 1)
		assert.Equal(t, 1, s.Mode().Queued)
		s.Release(1)
		synctest.Wait()
		assert.True(t, a.Served())
		assert.Zero(t, spun.Load())
		s.Release(1)
	})
}

// A parked waiter whose context is done leaves the semaphore exactly as it
// was before it arrived, in either mode, and lets the waiter behind it
// through if that one fits.
func TestCancelWhileParked(t *testing.T) {
	t.Run("normal", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := exhausted(t, 3)
			before := s.Mode()
			a := parked(s, 2)
			require.Equal(t, spinsem.Mode{Waiting: true, Queued: 1}, s.Mode())
			a.Cancel()
			synctest.Wait()
			require.True(t, a.Returned())
			assert.ErrorIs(t, a.Err, context.Canceled)
			assert.Equal(t, before, s.Mode())
			s.Release(3)
			assert.Equal(t, spinsem.Mode{Free: 3}, s.Mode())
		})
	})
	t.Run("starving", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := exhausted(t, 3)
			head := parked(s, 3)
			time.Sleep(2 * spinsem.StarvationThreshold)
			behind := parked(s, 2)
			s.Release(2)
			synctest.Wait()
			require.Equal(t, spinsem.Mode{Free: 2, Starving: true, Waiting: true, Queued: 2}, s.Mode())
			head.Cancel()
			synctest.Wait()
			assert.ErrorIs(t, head.Err, context.Canceled)
			assert.True(t, behind.Served(), "the waiter behind the canceled head fits in the 2 free permits")
			assert.Equal(t, spinsem.Mode{}, s.Mode(), "the queue emptied: starvation mode ends")
			s.Release(3)
			assert.Equal(t, spinsem.Mode{Free: 3}, s.Mode())
		})
	})
	t.Run("starving/last", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := exhausted(t, 3)
			head := parked(s, 3)
			time.Sleep(2 * spinsem.StarvationThreshold)
			s.Release(1)
			synctest.Wait()
			require.Equal(t, spinsem.Mode{Free: 1, Starving: true, Waiting: true, Queued: 1}, s.Mode())
			head.Cancel()
			synctest.Wait()
			assert.ErrorIs(t, head.Err, context.Canceled)
			assert.Equal(t, spinsem.Mode{Free: 1}, s.Mode(), "as if the head had never asked")
			assert.True(t, s.TryAcquire(1), "barging is allowed again")
			s.Release(3)
		})
	})
}

// A cancellation that comes before the grant wins (the scenario of
// go.dev/issue/63615), in either mode: the waiter returns the context's
// error and the permits stay free. In normal mode the Release wakes the
// waiter, which finds its context done before it takes the permits; in
// starvation mode the Release finds the context done before it hands the
// permits over, and fails the waiter instead.
func TestCancelBeforeGrantWins(t *testing.T) {
	for _, starving := range []bool{false, true} {
		t.Run(fmt.Sprintf("starving=%v", starving), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := exhausted(t, 2)
				a := parked(s, 2)
				if starving {
					time.Sleep(2 * spinsem.StarvationThreshold)
				}
				s.Release(1)
				synctest.Wait()
				require.Equal(t, starving, s.Mode().Starving)
				a.Cancel()
				s.Release(1)
				synctest.Wait()
				require.True(t, a.Returned())
				require.ErrorIs(t, a.Err, context.Canceled)
				assert.Equal(t, spinsem.Mode{Free: 2}, s.Mode(), "the canceled waiter kept permits")
			})
		})
	}
}

// A cancellation that comes before the grant wins also when the waiter's
// wake-up and ctx.Done() are both ready by the time it blocks. The hook
// cancels and then releases before the waiter blocks: in normal mode the
// Release wakes it, and it looks at its context before it takes the
// permits; in starvation mode the Release looks at the context before it
// hands the permits over, and fails the waiter. Its select picks either
// ready case, and both ways it returns the context's error holding
// nothing; each round takes one at random, and the rounds make it all but
// certain that both are taken.
func TestCancelBeforeGrantWinsWhenBothReady(t *testing.T) {
	t.Parallel()
	for _, starving := range []bool{false, true} {
		t.Run(fmt.Sprintf("starving=%v", starving), func(t *testing.T) {
			for range 20 {
				synctest.Test(t, func(t *testing.T) {
					s := exhausted(t, 2)
					ctx, cancel := context.WithCancel(context.Background())
					fired := false
					s.SetTestHookPark(func() {
						fired = true
						if starving {
							time.Sleep(2 * spinsem.StarvationThreshold)
							s.Release(1)
							require.True(t, s.Mode().Starving)
						} else {
							s.Release(1)
						}
						cancel()
						s.Release(1)
					})
					err := s.Acquire(ctx, 2)
					require.True(t, fired, "the Acquire did not park")
					require.ErrorIs(t, err, context.Canceled)
					assert.Equal(t, spinsem.Mode{Free: 2}, s.Mode(), "the canceled waiter kept permits")
				})
			}
		})
	}
}

// A spinning Acquire that takes the permits after its context is done gives
// them back: the cancellation came first. The hook cancels and frees the
// permits between one round's look at the context and the next round's
// compare-and-swap.
func TestCanceledWhileSpinningAsPermitsFree(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := exhausted(t, 2)
		s.SetProcs(2)
		ctx, cancel := context.WithCancel(context.Background())
		rounds := 0
		s.SetSpinHook(func() {
			if rounds++; rounds == 1 {
				cancel()
				s.Release(2)
			}
		})
		err := s.Acquire(ctx, 2)
		require.Equal(t, 1, rounds, "the Acquire did not take the permits in its next round")
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, spinsem.Mode{Free: 2}, s.Mode(), "the canceled spinner kept permits")
	})
}

// Errors other than the context's never come from a waiting Acquire.
func TestAcquireErrorIsContextError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := exhausted(t, 1)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		err := s.Acquire(ctx, 1)
		assert.True(t, errors.Is(err, context.DeadlineExceeded), "err = %v", err)
		assert.Equal(t, spinsem.Mode{}, s.Mode())
		s.Release(1)
	})
}
