package outsidefifo

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTypedNilAlgorithm(t *testing.T) {
	var g *adaptive.Gradient
	p := catch(func() { adaptive.New(weighted.New(1), 4, g) })
	t.Logf("New with typed-nil *Gradient: panic=%v", p)
	if p == nil {
		l := adaptive.New(weighted.New(1), 4, g)
		var where any
		synctest.Test(t, func(t *testing.T) {
			for i := 0; i < 200 && where == nil; i++ {
				tk, ok := l.TryStart(1)
				if !ok {
					continue
				}
				time.Sleep(time.Millisecond)
				where = catch(func() { tk.Done(true) })
			}
		})
		t.Logf("first panic from a request's Done: %v", where)
	}
}

func TestDoneCtxBeatsRefusal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, _ := learnt(t, 2, adaptive.WithMaxWait(time.Millisecond))
		require.True(t, l.TryAcquire(2))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r0 := l.Refused()
		_, err := l.Start(ctx, 1)
		assert.ErrorIs(t, err, context.Canceled, "Start with done ctx at a full limit")
		_, err = l.StartClass(ctx, 2, 1)
		assert.ErrorIs(t, err, context.Canceled, "StartClass with done ctx at a full limit")
		assert.Equal(t, r0, l.Refused(), "ctx-ended not counted")
		l.Release(2)
		// free permits, deadline shorter than the mean latency: still admitted
		ctx2, c2 := context.WithTimeout(context.Background(), time.Millisecond)
		tk, err := l.Start(ctx2, 1)
		c2()
		assert.NoError(t, err, "free permits and a short deadline")
		if err == nil {
			tk.Done(true)
		}
	})
}

func TestWindowInFlightAndSamples(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &script{next: 10}
		l := adaptive.New(weighted.New(1), 10, s, adaptive.WithBounds(10, 10))
		drive(t, l, s, 2, 10*time.Millisecond, 3)
		s.mu.Lock()
		for _, w := range s.windows {
			assert.LessOrEqual(t, w.InFlight, int64(2), "app-limited window %+v", w)
			assert.Equal(t, 10*time.Millisecond, w.MinRTT)
			assert.Equal(t, 10*time.Millisecond, w.MeanRTT)
		}
		n := len(s.windows)
		s.mu.Unlock()
		// one class refusal in the window: InFlight reads the limit
		require.True(t, l.TryAcquire(6))
		_, ok := l.TryStartClass(5, 1)
		require.False(t, ok)
		var wg sync.WaitGroup
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for s.nwin() == n {
					tk, ok := l.TryStart(1)
					if ok {
						time.Sleep(10 * time.Millisecond)
						tk.Done(false)
					}
				}
			}()
		}
		wg.Wait()
		l.Release(6)
		s.mu.Lock()
		w := s.windows[n]
		s.mu.Unlock()
		assert.EqualValues(t, 10, w.InFlight, "refusal marks the window: %+v", w)
		t.Logf("window with refusal: %+v", w)
	})
}

// A hurried user reports a bogus latency: it reached the Algorithm as a
// window's fastest (found against 00f73ac); Report now panics on it.
func TestBogusReportedLatency(t *testing.T) {
	l := adaptive.New(weighted.New(1), 8, &adaptive.Gradient{})
	tk, ok := l.TryStart(1)
	require.True(t, ok)
	assert.Panics(t, func() { tk.Report(-time.Second, true) })
	tk.Done(true)
}

func TestMaxWaitBeforeLatency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := adaptive.New(weighted.New(1), 1, &adaptive.Gradient{}, adaptive.WithBounds(1, 1), adaptive.WithMaxWait(50*time.Millisecond))
		require.True(t, l.TryAcquire(1))
		ctx, c := context.WithTimeout(context.Background(), 10*time.Second)
		defer c()
		t0 := time.Now()
		_, err := l.Start(ctx, 1)
		t.Logf("WithMaxWait(50ms), no latency seen, full: err=%v after %v", err, time.Since(t0))
		l.Release(1)
	})
}

// WithOnLimitChange: requests that end meanwhile do not wait for a slow f.
func TestSlowOnLimitChangeDoesNotBlockRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var calls atomic32
		s := &script{next: 6}
		l := adaptive.New(weighted.New(1), 4, s, adaptive.WithBounds(1, 10), adaptive.WithOnLimitChange(func(o, n int64) {
			if calls.add() == 1 {
				<-release
			}
		}))
		go drive(t, l, s, 4, 10*time.Millisecond, 1) // first window closes, f blocks in one goroutine
		time.Sleep(time.Second)
		synctest.Wait()
		// others go on
		done := 0
		for i := 0; i < 50; i++ {
			if tk, ok := l.TryStart(1); ok {
				time.Sleep(10 * time.Millisecond)
				tk.Done(true)
				done++
			}
		}
		assert.Greater(t, done, 40, "requests blocked by a slow OnLimitChange")
		close(release)
	})
}

type atomic32 struct {
	mu sync.Mutex
	n  int
}

func (a *atomic32) add() int { a.mu.Lock(); defer a.mu.Unlock(); a.n++; return a.n }

// "A request that waited longer than it then ran and failed ... does not count against the backend."
func TestQueuedFailureNotADrop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &script{next: 1}
		l := adaptive.New(weighted.New(1), 1, s, adaptive.WithBounds(1, 1))
		// No latency learnt: Start waits unbounded. Each request: waits 30ms, runs 10ms, fails.
		require.NoError(t, l.Acquire(context.Background(), 1))
		var wg sync.WaitGroup
		for i := range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(i) * time.Microsecond)
				tk, err := l.Start(context.Background(), 1)
				if err == nil {
					time.Sleep(10 * time.Millisecond)
					tk.Done(i%2 == 0)
				}
			}()
		}
		time.Sleep(30 * time.Millisecond)
		l.Release(1)
		wg.Wait()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, w := range s.windows {
			t.Logf("%+v", w)
		}
		// the first waiter waited 30ms and ran 10ms: its failure is the queue's.
		tot := int64(0)
		for _, w := range s.windows {
			tot += w.Drops
		}
		require.NotEmpty(t, s.windows)
		assert.Zero(t, tot, "failures of requests that waited longer than they ran counted as drops")
	})
}
