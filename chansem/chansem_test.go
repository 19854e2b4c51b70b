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
	"github.com/semacat/sem/internal/acquiretest"
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

// TestConformanceNewAvailable runs the suite again with the NewAvailable
// constructor, so that its rows run too.
func TestConformanceNewAvailable(t *testing.T) {
	acquiretest.ConformanceNewAvailable(t, func(size int64) sem.Semaphore { return chansem.New(size) },
		semtest.Guarantees{UnitFIFO: true, NoStarvation: true, NoBarging: true},
		func(size, available int64) sem.Semaphore { return chansem.NewAvailable(size, available) })
}

func TestBadInputMessages(t *testing.T) {
	acquiretest.CheckBadInputMessages(t, "chansem", "New", func(size int64) sem.Semaphore { return chansem.New(size) })
	assert.PanicsWithValue(t, "chansem: Unlock: released more than held (0 held)", chansem.New(1).Unlock)
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

// A multi-permit Acquire woken by one Release is not parked again until it
// runs its next send; a TryAcquire in that moment must not take the slot a
// second Release frees. The two Releases and the TryAcquire run in the hook
// before the gatherer's second send, so the gatherer is exactly between its
// sends.
func TestTryAcquireDoesNotBargePastGatherer(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := chansem.New(3)
		require.True(t, s.TryAcquire(3))
		sends, barged := 0, false
		s.SetTestHookSend(func() {
			sends++
			if sends == 2 { // the gatherer holds one slot, woken by the first Release
				s.Release(1)
				barged = s.TryAcquire(1)
			}
		})
		w := acquiretest.Go(s, 2)
		synctest.Wait()
		require.False(t, w.Returned())
		s.Release(1)
		synctest.Wait()
		require.Equal(t, 2, sends, "the gatherer did not reach its second send")
		assert.False(t, barged, "TryAcquire(1) took a slot while an Acquire(2) was gathering")
		require.True(t, w.Returned())
		require.NoError(t, w.Err)
		assert.Equal(t, int64(0), s.Available())
		if barged {
			s.Release(1)
		}
		s.Release(1)
		s.Release(2)
		assert.Equal(t, int64(3), s.Available())
	})
}

// A multi-permit Acquire that waited for the gate is still waiting when the
// gate is handed to it and it has not sent yet. The hook runs at the second
// gatherer's first send, just after the hand-off: a slot freed there must
// not go to a TryAcquire.
func TestTryAcquireDoesNotBargePastGateHandoff(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := chansem.New(3)
		require.True(t, s.TryAcquire(3))
		sends, barged := 0, false
		s.SetTestHookSend(func() {
			if sends++; sends == 3 { // the second gatherer's first send
				s.Release(1)
				barged = s.TryAcquire(1)
			}
		})
		first := acquiretest.Go(s, 2)
		synctest.Wait()
		second := acquiretest.Go(s, 2)
		synctest.Wait()
		s.Release(1)
		synctest.Wait()
		s.Release(1) // the first gathers its second slot and hands the gate on
		synctest.Wait()
		require.True(t, first.Served())
		require.GreaterOrEqual(t, sends, 3, "the second gatherer did not take the gate")
		if !assert.False(t, barged, "TryAcquire(1) took a slot while an Acquire(2) had just been handed the gate") {
			s.Release(1)
			synctest.Wait()
		}
		require.Equal(t, 4, sends, "the second gatherer did not reach its second send")
		s.Release(2) // on behalf of the first
		synctest.Wait()
		require.True(t, second.Served())
		s.Release(2)
		assert.Equal(t, int64(3), s.Available())
	})
}

// The same barging, as an outside review reproduced it: no hook, the
// Releases and the TryAcquire follow each other while the gatherer runs.
// Whatever the gatherer has done by then, TryAcquire must fail.
func TestTryAcquireDoesNotBargeAfterTwoReleases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := chansem.New(3)
		require.True(t, s.TryAcquire(3))
		w := acquiretest.Go(s, 2)
		synctest.Wait()
		s.Release(1)
		s.Release(1)
		if !assert.False(t, s.TryAcquire(1), "TryAcquire(1) took a slot while an Acquire(2) was gathering") {
			s.Release(1)
		}
		synctest.Wait()
		require.NoError(t, w.Err)
		s.Release(3)
		assert.Equal(t, int64(3), s.Available())
	})
}

// Releasing more than is held while a multi-permit Acquire has gathered part
// of its permits panics, before anything changes: the gathered slots are
// not counted as held, and nobody ends up holding more than the size.
func TestOverReleaseWhileGathering(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := chansem.New(3)
		require.True(t, s.TryAcquire(2))
		w := acquiretest.Go(s, 3)
		synctest.Wait()
		require.False(t, w.Returned())
		require.Equal(t, int64(0), s.Available(), "the gatherer should hold the one free slot")
		assert.PanicsWithValue(t, "chansem: Release(3): released more than held (2 held)", func() { s.Release(3) })
		synctest.Wait()
		assert.False(t, w.Returned(), "the refused Release served the gatherer")
		assert.Equal(t, int64(0), s.Available(), "the refused Release changed the state")
		assert.False(t, s.TryAcquire(1), "TryAcquire(1) succeeded on a full semaphore")
		s.Release(2)
		synctest.Wait()
		require.True(t, w.Returned())
		require.NoError(t, w.Err)
		assert.PanicsWithValue(t, "chansem: Release(4): released more than held (3 held)", func() { s.Release(4) })
		s.Release(3)
		assert.Equal(t, int64(3), s.Available())
	})
}

// Two Releases racing for the same permits cannot both pass the check: the
// second one, run between the first one's check and its receives, panics
// having given nothing back.
func TestConcurrentOverReleaseChangesNothing(t *testing.T) {
	t.Parallel()
	s := chansem.New(3)
	require.True(t, s.TryAcquire(3))
	fired := false
	s.SetTestHookRelease(func() {
		if fired {
			return
		}
		fired = true
		assert.PanicsWithValue(t, "chansem: Release(2): released more than held (1 held)", func() { s.Release(2) })
		assert.Equal(t, int64(0), s.Available(), "the refused Release gave permits back")
	})
	s.Release(2)
	require.True(t, fired, "the hook did not run")
	assert.Equal(t, int64(2), s.Available())
	s.Release(1)
	assert.Equal(t, int64(3), s.Available())
}

// A cancellation that comes before the permit is granted wins (the scenario
// of go.dev/issue/63615) on the single-permit path too: the waiter returns
// the context's error and the permit stays free. semtest's Cancel/BeforeGrant
// row makes the same race with Acquire(2), which gathers.
func TestCancelBeforeGrantWins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := chansem.New(1)
		require.True(t, s.TryAcquire(1))
		w := acquiretest.Go(s, 1)
		synctest.Wait()
		w.Cancel()
		s.Release(1)
		synctest.Wait()
		require.ErrorIs(t, w.Err, context.Canceled)
		assert.Equal(t, int64(1), s.Available())
	})
}

// When the last slot is free and the context is done by the time a waiter
// sends, the select may pick either; the cancellation came first and must
// win both ways. Each round takes one of the two at random; the rounds make
// it all but certain that both are taken.
func TestCanceledAsLastSlotFrees(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		size, want int64
		lastSend   int
	}{{"unit", 1, 1, 1}, {"gathering", 2, 2, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			for range 20 {
				synctest.Test(t, func(t *testing.T) {
					s := chansem.New(tc.size)
					require.True(t, s.TryAcquire(1))
					w := acquiretest.Prepare(tc.want)
					sends := 0
					s.SetTestHookSend(func() {
						if sends++; sends == tc.lastSend {
							w.Cancel()
							s.Release(1)
						}
					})
					w.Start(s)
					synctest.Wait()
					require.Equal(t, tc.lastSend, sends)
					require.ErrorIs(t, w.Err, context.Canceled)
					assert.Equal(t, tc.size, s.Available())
				})
			}
		})
	}
}

// Lock and Unlock share the count of held permits with Acquire and Release,
// so the pairs mix, and an Unlock with nothing held panics changing nothing.
func TestLockerMixesWithAcquire(t *testing.T) {
	s := chansem.New(2)
	s.Lock()
	require.NoError(t, s.Acquire(context.Background(), 1))
	s.Release(1)
	s.Unlock()
	assert.PanicsWithValue(t, "chansem: Release(1): released more than held (0 held)", func() { s.Release(1) })
	require.True(t, s.TryAcquire(2))
	s.Unlock()
	s.Unlock()
	assert.PanicsWithValue(t, "chansem: Unlock: released more than held (0 held)", s.Unlock)
	assert.Equal(t, int64(2), s.Available())
}
