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
	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/benchmarks"
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

func TestSizeAndAvailable(t *testing.T) {
	s := spinsem.New(5)
	assert.Equal(t, int64(5), s.Size())
	assert.Equal(t, int64(5), s.Available())
	require.True(t, s.TryAcquire(3))
	assert.Equal(t, int64(2), s.Available())
	s.Release(3)
	assert.Equal(t, int64(5), s.Available())

	big := spinsem.New(spinsem.MaxSize)
	require.True(t, big.TryAcquire(spinsem.MaxSize))
	assert.Equal(t, int64(0), big.Available())
	assert.PanicsWithValue(t, "spinsem: Release(9223372036854775807): released more than held (36028797018963967 held)",
		func() { big.Release(1<<63 - 1) })
	big.Release(spinsem.MaxSize)
	assert.Equal(t, int64(spinsem.MaxSize), big.Available())
}

func TestBadInputMessages(t *testing.T) {
	assert.PanicsWithValue(t, "spinsem: New(0): size must be at least 1", func() { spinsem.New(0) })
	assert.PanicsWithValue(t, "spinsem: New(36028797018963968): size must be at most 36028797018963967",
		func() { spinsem.New(spinsem.MaxSize + 1) })
	s := spinsem.New(2)
	assert.PanicsWithValue(t, "spinsem: Acquire(-2): negative weight; the number of permits must be at least 0",
		func() { _ = s.Acquire(context.Background(), -2) })
	assert.PanicsWithValue(t, "spinsem: TryAcquire(-1): negative weight; the number of permits must be at least 0",
		func() { s.TryAcquire(-1) })
	assert.PanicsWithValue(t, "spinsem: Release(1): released more than held (0 held)", func() { s.Release(1) })

	err := s.Acquire(context.Background(), 3)
	require.ErrorIs(t, err, sem.ErrExceedsSize)
	assert.EqualError(t, err, "spinsem: Acquire(3) can never succeed on a semaphore of size 2; ask for at most 2 permits: sem: request exceeds semaphore size")
	assert.Equal(t, spinsem.Mode{Free: 2}, s.Mode())
}

// acquirer is an Acquire running in its own goroutine.
type acquirer struct {
	n      int64
	cancel context.CancelFunc
	done   atomic.Bool
	err    error // set before done
}

func goAcquire(s *spinsem.Semaphore, n int64) *acquirer {
	ctx, cancel := context.WithCancel(context.Background())
	a := &acquirer{n: n, cancel: cancel}
	go func() {
		a.err = s.Acquire(ctx, n)
		a.done.Store(true)
	}()
	return a
}

func (a *acquirer) served() bool { return a.done.Load() && a.err == nil }

// Starvation mode, step by step: entered when a Release finds that the head
// of the queue, which has waited over 1ms, does not fit; it stops barging,
// hands permits to the head in queue order, and ends when a handoff goes to
// a waiter that waited less than 1ms.
func TestStarvationModeEntryAndExit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := spinsem.New(2)
		require.True(t, s.TryAcquire(2))
		large := goAcquire(s, 2)
		synctest.Wait()
		time.Sleep(spinsem.StarvationThreshold + time.Microsecond)
		small := goAcquire(s, 1)
		synctest.Wait()
		next := goAcquire(s, 2)
		synctest.Wait()
		require.Equal(t, spinsem.Mode{Waiting: true, Queued: 3}, s.Mode())

		s.Release(1)
		synctest.Wait()
		assert.Equal(t, spinsem.Mode{Free: 1, Starving: true, Waiting: true, Queued: 3}, s.Mode(),
			"the head (Acquire(2)) has waited over 1ms and does not fit: starvation mode")
		assert.False(t, s.TryAcquire(1), "TryAcquire barged in starvation mode")

		s.Release(1)
		synctest.Wait()
		require.True(t, large.served(), "the 2 free permits were not handed to the starving head")
		assert.Equal(t, spinsem.Mode{Starving: true, Waiting: true, Queued: 2}, s.Mode(),
			"the head waited over 1ms and others wait: starvation mode continues")

		s.Release(2) // on behalf of large: 1 is handed to small, which waited under 1ms
		synctest.Wait()
		require.True(t, small.served())
		assert.Equal(t, spinsem.Mode{Free: 1, Waiting: true, Queued: 1}, s.Mode(),
			"a handoff to a waiter that waited under 1ms ends starvation mode")
		require.True(t, s.TryAcquire(1), "barging is allowed again in normal mode")
		s.Release(1)

		s.Release(1) // on behalf of small
		synctest.Wait()
		assert.True(t, next.served(), "in normal mode, the head is woken once it fits")
		assert.Equal(t, spinsem.Mode{}, s.Mode())
		s.Release(2)
		assert.Equal(t, spinsem.Mode{Free: 2}, s.Mode())
	})
}

// Before the head has waited 1ms the semaphore stays in normal mode, where
// arrivals may barge.
func TestNoStarvationModeBeforeThreshold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := spinsem.New(2)
		require.True(t, s.TryAcquire(2))
		large := goAcquire(s, 2)
		synctest.Wait()
		time.Sleep(spinsem.StarvationThreshold - time.Microsecond)
		s.Release(1)
		synctest.Wait()
		assert.Equal(t, spinsem.Mode{Free: 1, Waiting: true, Queued: 1}, s.Mode())
		require.True(t, s.TryAcquire(1), "in normal mode TryAcquire takes free permits even while others wait")
		s.Release(2)
		synctest.Wait()
		require.True(t, large.served())
		s.Release(2)
		assert.Equal(t, spinsem.Mode{Free: 2}, s.Mode())
	})
}

// A woken waiter that loses the race to a barging arrival goes back to the
// front of the queue, ahead of those that came after it; if it had waited
// over 1ms, it switches the semaphore to starvation mode.
func TestWokenWaiterThatLosesStaysAtFront(t *testing.T) {
	for _, wait := range []time.Duration{0, spinsem.StarvationThreshold + time.Microsecond} {
		t.Run("waited="+wait.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := spinsem.New(1)
				require.True(t, s.TryAcquire(1))
				first := goAcquire(s, 1)
				synctest.Wait()
				time.Sleep(wait)
				second := goAcquire(s, 1)
				synctest.Wait()
				// Release wakes first; barge before it runs. It may win
				// the race on the other processor; then try again.
				for {
					s.Release(1)
					if s.TryAcquire(1) {
						break
					}
					synctest.Wait()
					require.True(t, first.served(), "TryAcquire failed but nobody took the permit")
					t.Skip("the woken waiter won the race against TryAcquire")
				}
				synctest.Wait()
				require.False(t, first.done.Load())
				mode := s.Mode()
				assert.Equal(t, wait > spinsem.StarvationThreshold, mode.Starving, "starvation mode after a waiter of %v lost a race", wait)
				assert.Equal(t, 2, mode.Queued)
				s.Release(1)
				synctest.Wait()
				assert.True(t, first.served(), "the waiter that lost was not served before the one that arrived after it")
				assert.False(t, second.done.Load())
				s.Release(1)
				synctest.Wait()
				assert.True(t, second.served())
				s.Release(1)
				assert.Equal(t, spinsem.Mode{Free: 1}, s.Mode())
			})
		})
	}
}

// In starvation mode arrivals neither barge nor spin: they queue at the
// tail, behind the starving head.
func TestStarvationModeArrivalsQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer spinsem.SetProcs(2)()
		var spun atomic.Int32
		defer spinsem.SetSpinHook(func() { spun.Add(1) })()
		s := spinsem.New(2)
		require.True(t, s.TryAcquire(2))
		large := goAcquire(s, 2)
		synctest.Wait()
		spun.Store(0)
		time.Sleep(2 * spinsem.StarvationThreshold)
		s.Release(1)
		synctest.Wait()
		require.True(t, s.Mode().Starving)
		late := goAcquire(s, 1)
		synctest.Wait()
		assert.False(t, late.done.Load(), "an Acquire(1) barged in starvation mode")
		assert.Zero(t, spun.Load(), "an arrival spun in starvation mode")
		s.Release(1)
		synctest.Wait()
		assert.True(t, large.served())
		assert.False(t, late.done.Load(), "the arrival passed the starving head")
		s.Release(2)
		synctest.Wait()
		assert.True(t, late.served())
		s.Release(1)
		assert.Equal(t, spinsem.Mode{Free: 2}, s.Mode())
	})
}

// A done context stops a spinning Acquire at the next round, with nothing
// acquired and the semaphore unchanged.
func TestCancelWhileSpinning(t *testing.T) {
	synctest.Test(t, testCancelWhileSpinning)
}

func testCancelWhileSpinning(t *testing.T) {
	defer spinsem.SetProcs(2)()
	s := spinsem.New(1)
	require.True(t, s.TryAcquire(1))
	ctx, cancel := context.WithCancel(context.Background())
	rounds := 0
	defer spinsem.SetSpinHook(func() {
		rounds++
		if rounds == 2 {
			cancel()
		}
	})()
	err := s.Acquire(ctx, 1)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 2, rounds, "Acquire kept spinning after its context was canceled")
	assert.Equal(t, spinsem.Mode{}, s.Mode(), "a canceled spinner changed the state")
	s.Release(1)
	assert.Equal(t, spinsem.Mode{Free: 1}, s.Mode())
}

// Permits freed while an Acquire spins are taken by it, without parking.
func TestSpinAcquires(t *testing.T) {
	synctest.Test(t, testSpinAcquires)
}

func testSpinAcquires(t *testing.T) {
	defer spinsem.SetProcs(2)()
	s := spinsem.New(3)
	require.True(t, s.TryAcquire(3))
	rounds := 0
	defer spinsem.SetSpinHook(func() {
		rounds++
		if rounds == 2 {
			s.Release(2)
		}
	})()
	require.NoError(t, s.Acquire(context.Background(), 2))
	assert.Equal(t, 2, rounds)
	assert.Equal(t, spinsem.Mode{}, s.Mode())
	s.Release(3)
}

// With one processor the holder cannot run while we spin: do not spin.
func TestNoSpinOnOneProcessor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer spinsem.SetProcs(1)()
		var spun atomic.Int32
		defer spinsem.SetSpinHook(func() { spun.Add(1) })()
		s := spinsem.New(1)
		require.True(t, s.TryAcquire(1))
		a := goAcquire(s, 1)
		synctest.Wait()
		assert.Equal(t, 1, s.Mode().Queued)
		s.Release(1)
		synctest.Wait()
		assert.True(t, a.served())
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
			s := spinsem.New(3)
			require.True(t, s.TryAcquire(3))
			before := s.Mode()
			a := goAcquire(s, 2)
			synctest.Wait()
			require.Equal(t, spinsem.Mode{Waiting: true, Queued: 1}, s.Mode())
			a.cancel()
			synctest.Wait()
			require.True(t, a.done.Load())
			assert.ErrorIs(t, a.err, context.Canceled)
			assert.Equal(t, before, s.Mode())
			s.Release(3)
			assert.Equal(t, spinsem.Mode{Free: 3}, s.Mode())
		})
	})
	t.Run("starving", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := spinsem.New(3)
			require.True(t, s.TryAcquire(3))
			head := goAcquire(s, 3)
			synctest.Wait()
			time.Sleep(2 * spinsem.StarvationThreshold)
			behind := goAcquire(s, 2)
			synctest.Wait()
			s.Release(2)
			synctest.Wait()
			require.Equal(t, spinsem.Mode{Free: 2, Starving: true, Waiting: true, Queued: 2}, s.Mode())
			head.cancel()
			synctest.Wait()
			assert.ErrorIs(t, head.err, context.Canceled)
			assert.True(t, behind.served(), "the waiter behind the canceled head fits in the 2 free permits")
			assert.Equal(t, spinsem.Mode{}, s.Mode(), "the queue emptied: starvation mode ends")
			s.Release(3)
			assert.Equal(t, spinsem.Mode{Free: 3}, s.Mode())
		})
	})
	t.Run("starving/last", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := spinsem.New(3)
			require.True(t, s.TryAcquire(3))
			head := goAcquire(s, 3)
			synctest.Wait()
			time.Sleep(2 * spinsem.StarvationThreshold)
			s.Release(1)
			synctest.Wait()
			require.Equal(t, spinsem.Mode{Free: 1, Starving: true, Waiting: true, Queued: 1}, s.Mode())
			head.cancel()
			synctest.Wait()
			assert.ErrorIs(t, head.err, context.Canceled)
			assert.Equal(t, spinsem.Mode{Free: 1}, s.Mode(), "as if the head had never asked")
			assert.True(t, s.TryAcquire(1), "barging is allowed again")
			s.Release(3)
		})
	})
}

// A waiter whose context is done just as permits are handed to it returns
// nil holding them or the error having handed them on; never both.
func TestCanceledAsGranted(t *testing.T) {
	outcomes := map[bool]int{}
	for range 40 {
		synctest.Test(t, func(t *testing.T) {
			s := spinsem.New(2)
			require.True(t, s.TryAcquire(2))
			a := goAcquire(s, 2)
			synctest.Wait()
			time.Sleep(2 * spinsem.StarvationThreshold)
			s.Release(1)
			synctest.Wait()
			require.True(t, s.Mode().Starving)
			a.cancel()
			s.Release(1) // hands the permits to a, unless it left already
			synctest.Wait()
			require.True(t, a.done.Load())
			outcomes[a.err == nil]++
			if a.err == nil {
				assert.Equal(t, spinsem.Mode{}, s.Mode(), "Acquire returned nil: it holds both permits")
				s.Release(2)
			} else {
				assert.ErrorIs(t, a.err, context.Canceled)
				assert.Equal(t, spinsem.Mode{Free: 2}, s.Mode(), "Acquire failed: it must hold nothing")
			}
			assert.Equal(t, spinsem.Mode{Free: 2}, s.Mode())
		})
	}
	t.Logf("outcomes (served: count): %v", outcomes)
}

// A large request completes while small requests hammer the semaphore with
// real parallelism. Each hammer goes hand over hand: it takes its next permit
// with TryAcquire before it gives back the one it holds, and only when that
// fails releases first and then waits in Acquire. In normal mode some permit
// is therefore always held and the large request could wait forever;
// starvation mode makes TryAcquire fail and the hammers queue behind it. The
// wait is logged; its speed is measured by BenchmarkSpin/large-under-hammer,
// not asserted here.
func TestLargeRequestUnderHammer(t *testing.T) {
	const size, rounds = 8, 10
	s := spinsem.New(size)
	cycles, stop := startHammers(s, size)
	var worst time.Duration
	for i := range rounds {
		// Arrive in the middle of the storm.
		for c := cycles.Load(); cycles.Load() < c+100*size; {
			runtime.Gosched()
		}
		// The deadline only turns a starved request into a failure instead
		// of a hang; a correct implementation needs milliseconds.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		start := time.Now()
		err := s.Acquire(ctx, size)
		wait := time.Since(start)
		cancel()
		if !assert.NoError(t, err, "round %d: Acquire(%d) starved while %d goroutines cycled Acquire(1)", i, size, size) {
			break
		}
		worst = max(worst, wait)
		s.Release(size)
	}
	stop()
	t.Logf("worst wait of Acquire(%d) under %d hand-over-hand hammers: %v", size, size, worst)
	assert.Equal(t, int64(size), s.Available())
}

// Errors other than the context's never come from a waiting Acquire.
func TestAcquireErrorIsContextError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := spinsem.New(1)
		require.True(t, s.TryAcquire(1))
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		err := s.Acquire(ctx, 1)
		assert.True(t, errors.Is(err, context.DeadlineExceeded), "err = %v", err)
		assert.Equal(t, spinsem.Mode{}, s.Mode())
		s.Release(1)
	})
}

// startHammers starts n goroutines that go hand over hand on s: each takes
// its next permit with TryAcquire before it gives back the one it holds, and
// only when that fails releases first and then waits in Acquire. So in normal
// mode some permit is always held. cycles counts their steps; stop ends them
// and waits until they have returned their permits.
func startHammers(s *spinsem.Semaphore, n int) (cycles *atomic.Int64, stop func()) {
	cycles = new(atomic.Int64)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Acquire(context.Background(), 1); err != nil {
				panic(err)
			}
			for {
				select {
				case <-done:
					s.Release(1)
					return
				default:
				}
				benchmarks.Spin(50)
				if s.TryAcquire(1) {
					s.Release(1)
				} else {
					s.Release(1)
					if err := s.Acquire(context.Background(), 1); err != nil {
						panic(err)
					}
				}
				cycles.Add(1)
				runtime.Gosched()
			}
		}()
	}
	return cycles, func() { close(done); wg.Wait() }
}
