package outsidefifo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// script is an Algorithm whose proposal the test sets.
type script struct {
	mu      sync.Mutex
	next    float64
	windows []adaptive.Window
	busy    atomic.Int32
	overlap atomic.Int32
}

func (s *script) Next(w adaptive.Window) float64 {
	if s.busy.Add(1) > 1 {
		s.overlap.Add(1)
	}
	defer s.busy.Add(-1)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.windows = append(s.windows, w)
	return s.next
}
func (s *script) set(v float64) { s.mu.Lock(); s.next = v; s.mu.Unlock() }
func (s *script) nwin() int     { s.mu.Lock(); defer s.mu.Unlock(); return len(s.windows) }

// drive runs k goroutines doing Start, sleep d, Done(true) until n windows closed (synctest).
func drive(t *testing.T, l *adaptive.Limiter, s *script, k int, d time.Duration, windows int) {
	var wg sync.WaitGroup
	start := s.nwin()
	for range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s.nwin()-start < windows {
				tok, ok := l.TryStart(1)
				if !ok {
					time.Sleep(d / 10)
					continue
				}
				time.Sleep(d)
				tok.Done(true)
			}
		}()
	}
	wg.Wait()
}

func catch(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

func TestNewAndOptionPanics(t *testing.T) {
	g := func() adaptive.Algorithm { return &adaptive.Gradient{} }
	cases := []struct {
		name  string
		f     func()
		panic bool
	}{
		{"initial 0", func() { adaptive.New(weighted.New(1), 0, g()) }, true},
		{"initial below min", func() { adaptive.New(weighted.New(1), 2, g(), adaptive.WithBounds(3, 5)) }, true},
		{"initial above max", func() { adaptive.New(weighted.New(1), 6, g(), adaptive.WithBounds(3, 5)) }, true},
		{"initial above default max", func() { adaptive.New(weighted.New(1), 1<<20+1, g()) }, true},
		{"initial at default max", func() { adaptive.New(weighted.New(1), 1<<20, g()) }, false},
		{"nil alg", func() { adaptive.New(weighted.New(1), 1, nil) }, true},
		{"held permits", func() { s := weighted.New(3); s.TryAcquire(1); adaptive.New(s, 1, g()) }, true},
		{"min 0", func() { adaptive.New(weighted.New(1), 1, g(), adaptive.WithBounds(0, 5)) }, true},
		{"max<min", func() { adaptive.New(weighted.New(1), 3, g(), adaptive.WithBounds(3, 2)) }, true},
		{"share 0", func() { adaptive.New(weighted.New(1), 1, g(), adaptive.WithClassShare(0)) }, true},
		{"share 1", func() { adaptive.New(weighted.New(1), 1, g(), adaptive.WithClassShare(1)) }, true},
		{"share NaN", func() { adaptive.New(weighted.New(1), 1, g(), adaptive.WithClassShare(math.NaN())) }, true},
		{"maxwait -1", func() { adaptive.New(weighted.New(1), 1, g(), adaptive.WithMaxWait(-1)) }, true},
		{"smoothing 0", func() { adaptive.New(weighted.New(1), 1, g(), adaptive.WithSmoothing(0)) }, true},
		{"smoothing 1.01", func() { adaptive.New(weighted.New(1), 1, g(), adaptive.WithSmoothing(1.01)) }, true},
		{"smoothing NaN", func() { adaptive.New(weighted.New(1), 1, g(), adaptive.WithSmoothing(math.NaN())) }, true},
		{"smoothing 1", func() { adaptive.New(weighted.New(1), 1, g(), adaptive.WithSmoothing(1)) }, false},
		{"nil rand", func() { adaptive.New(weighted.New(1), 1, g(), adaptive.WithRand(nil)) }, false},
	}
	for _, c := range cases {
		r := catch(c.f)
		assert.Equal(t, c.panic, r != nil, "%s: panic=%v", c.name, r)
	}
}

func TestNegativeNPanics(t *testing.T) {
	l := adaptive.New(weighted.New(1), 4, &adaptive.Gradient{})
	ctx := context.Background()
	for name, f := range map[string]func(){
		"Start":         func() { l.Start(ctx, -1) },
		"TryStart":      func() { l.TryStart(-1) },
		"StartClass n":  func() { l.StartClass(ctx, 0, -1) },
		"StartClass c":  func() { l.StartClass(ctx, -1, 1) },
		"TryStartClass": func() { l.TryStartClass(-1, 1) },
		"Acquire":       func() { l.Acquire(ctx, -1) },
		"TryAcquire":    func() { l.TryAcquire(-1) },
		"Release":       func() { l.Release(-1) },
	} {
		assert.NotNil(t, catch(f), name)
	}
	assert.EqualValues(t, 0, l.InFlight())
}

func TestExceedsSizeFirstAndNotCounted(t *testing.T) {
	l := adaptive.New(weighted.New(1), 4, &adaptive.Gradient{}, adaptive.WithBounds(4, 4))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := l.Start(ctx, 5)
	assert.ErrorIs(t, err, sem.ErrExceedsSize)
	_, err = l.StartClass(ctx, 3, 5)
	assert.ErrorIs(t, err, sem.ErrExceedsSize)
	assert.ErrorIs(t, l.Acquire(ctx, 5), sem.ErrExceedsSize)
	_, err = l.Start(context.Background(), 1<<62)
	assert.ErrorIs(t, err, sem.ErrExceedsSize)
	_, ok := l.TryStart(5)
	assert.False(t, ok)
	_, ok = l.TryStartClass(2, 5)
	assert.False(t, ok)
	assert.EqualValues(t, 0, l.Refused(), "requests larger than the limit are not counted")
	// done ctx with free permits: ctx.Err(), nothing held, not counted
	_, err = l.Start(ctx, 1)
	assert.ErrorIs(t, err, context.Canceled)
	_, err = l.StartClass(ctx, 2, 1)
	assert.ErrorIs(t, err, context.Canceled)
	assert.EqualValues(t, 0, l.InFlight())
	assert.EqualValues(t, 0, l.Refused())
}

func TestSemaphoreContract(t *testing.T) {
	l := adaptive.New(weighted.New(1), 3, &adaptive.Gradient{}, adaptive.WithBounds(3, 3))
	var s sem.Semaphore = l
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, s.Acquire(ctx, 0), context.Canceled)
	assert.NoError(t, s.Acquire(context.Background(), 0))
	assert.True(t, s.TryAcquire(0))
	s.Release(0)
	assert.ErrorIs(t, s.Acquire(ctx, 1), context.Canceled)
	assert.EqualValues(t, 0, l.InFlight())
	require.NoError(t, s.Acquire(context.Background(), 2))
	assert.NotNil(t, catch(func() { s.Release(3) }))
	assert.EqualValues(t, 2, l.InFlight(), "a panicking Release changes nothing")
	assert.True(t, s.TryAcquire(1))
	assert.False(t, s.TryAcquire(1))
	s.Release(3)
	assert.EqualValues(t, 0, l.InFlight())
	assert.False(t, s.TryAcquire(4))
	assert.EqualValues(t, 0, l.Refused(), "TryAcquire is not a TryStart")
}

// Before any latency is seen, Start waits as Acquire does (default max wait).
func TestStartWaitsBeforeLatency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := adaptive.New(weighted.New(1), 1, &adaptive.Gradient{}, adaptive.WithBounds(1, 1))
		tok, err := l.Start(context.Background(), 1)
		require.NoError(t, err)
		done := make(chan error)
		go func() {
			t2, err := l.Start(context.Background(), 1)
			if err == nil {
				t2.Done(true)
			}
			done <- err
		}()
		synctest.Wait()
		assert.EqualValues(t, 1, l.Queued())
		time.Sleep(time.Hour)
		tok.Done(true)
		assert.NoError(t, <-done)
		assert.EqualValues(t, 0, l.Queued())
		assert.EqualValues(t, 0, l.InFlight())
	})
}

func TestMaxWaitZeroRefusesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := adaptive.New(weighted.New(1), 1, &adaptive.Gradient{}, adaptive.WithBounds(1, 1), adaptive.WithMaxWait(0))
		tok, _ := l.Start(context.Background(), 1)
		t0 := time.Now()
		_, err := l.Start(context.Background(), 1)
		assert.ErrorIs(t, err, adaptive.ErrLimitExceeded, "WithMaxWait(0) before any latency")
		assert.Equal(t, time.Duration(0), time.Since(t0))
		tok.Done(true)
	})
}

// learn: limit fixed by bounds, mean latency 10ms learnt by many windows.
func learnt(t *testing.T, L int64, opts ...adaptive.Option) (*adaptive.Limiter, *script) {
	s := &script{next: float64(L)}
	l := adaptive.New(weighted.New(1), L, s, append([]adaptive.Option{adaptive.WithBounds(L, L)}, opts...)...)
	drive(t, l, s, int(L), 10*time.Millisecond, 5)
	require.EqualValues(t, 0, l.InFlight())
	return l, s
}

func TestQueueTimeoutAndPrediction(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, _ := learnt(t, 1, adaptive.WithMaxWait(50*time.Millisecond))
		tok, _ := l.Start(context.Background(), 1)
		r0 := l.Refused()
		t0 := time.Now()
		_, err := l.Start(context.Background(), 1) // predicted 10ms <= 50ms: waits, then times out
		assert.ErrorIs(t, err, adaptive.ErrQueueTimeout)
		assert.Equal(t, 50*time.Millisecond, time.Since(t0))
		assert.EqualValues(t, r0+1, l.Refused())
		// deadline leaves 15ms-10ms = 5ms < predicted 10ms: refused at once
		ctx, c := context.WithTimeout(context.Background(), 15*time.Millisecond)
		t0 = time.Now()
		_, err = l.Start(ctx, 1)
		c()
		assert.ErrorIs(t, err, adaptive.ErrLimitExceeded)
		assert.Equal(t, time.Duration(0), time.Since(t0))
		// deadline 40ms leaves 30ms >= 10ms predicted: waits 30ms then ErrQueueTimeout (not ctx.Err())
		ctx, c = context.WithTimeout(context.Background(), 40*time.Millisecond)
		t0 = time.Now()
		_, err = l.Start(ctx, 1)
		c()
		assert.ErrorIs(t, err, adaptive.ErrQueueTimeout, "err=%v after %v", err, time.Since(t0))
		assert.Equal(t, 30*time.Millisecond, time.Since(t0))
		tok.Done(true)
		assert.EqualValues(t, r0+3, l.Refused())
	})
}

func TestPredictedWaitTooLong(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, _ := learnt(t, 1, adaptive.WithMaxWait(5*time.Millisecond))
		tok, _ := l.Start(context.Background(), 1)
		t0 := time.Now()
		_, err := l.Start(context.Background(), 1)
		assert.ErrorIs(t, err, adaptive.ErrLimitExceeded)
		assert.Equal(t, time.Duration(0), time.Since(t0))
		tok.Done(true)
	})
}

// Default max wait: a quarter of the no-load latency. Limit 8, work 10ms:
// first permit back 10/8 = 1.25ms <= 2.5ms, so Start waits (limit >= 4*mean/fastest).
func TestDefaultWaitAtLimit8(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, _ := learnt(t, 8)
		var toks []adaptive.Token
		for range 8 {
			tk, ok := l.TryStart(1)
			require.True(t, ok)
			toks = append(toks, tk)
		}
		t0 := time.Now()
		_, err := l.Start(context.Background(), 1)
		assert.ErrorIs(t, err, adaptive.ErrQueueTimeout, "should wait then time out")
		assert.Equal(t, 2500*time.Microsecond, time.Since(t0))
		// at limit 3: 10/3 = 3.3ms > 2.5ms: refused at once
		for _, tk := range toks {
			tk.Done(true)
		}
		l3, _ := learnt(t, 3)
		for range 3 {
			l3.TryStart(1)
		}
		t0 = time.Now()
		_, err = l3.Start(context.Background(), 1)
		assert.ErrorIs(t, err, adaptive.ErrLimitExceeded)
		assert.Equal(t, time.Duration(0), time.Since(t0))
	})
}

func TestLatencyFromGrant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &script{next: 1}
		l := adaptive.New(weighted.New(1), 1, s, adaptive.WithBounds(1, 1))
		// no latency learnt yet: Start waits as Acquire does. Each request waits 30ms then runs 10ms.
		require.NoError(t, l.Acquire(context.Background(), 1)) // blocker reports no latency
		var wg sync.WaitGroup
		for i := range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(i) * time.Microsecond)
				tk, err := l.Start(context.Background(), 1)
				if err != nil {
					return
				}
				time.Sleep(10 * time.Millisecond)
				tk.Done(true)
			}()
		}
		time.Sleep(30 * time.Millisecond)
		l.Release(1)
		wg.Wait()
		s.mu.Lock()
		defer s.mu.Unlock()
		require.NotEmpty(t, s.windows)
		for _, w := range s.windows {
			assert.LessOrEqual(t, w.MeanRTT, 10*time.Millisecond+time.Microsecond, "%+v", w)
		}
	})
}

// class model: a request of class c, n permits is admitted iff free >= n + extra.
func classExtra(L, n int64, c int, share float64, perClassCeil bool) int64 {
	var e int64
	if perClassCeil {
		e = int64(c) * int64(math.Ceil(share*float64(L)-1e-9))
	} else {
		e = int64(math.Ceil(float64(c)*share*float64(L) - 1e-9))
	}
	e = min(e, L/2, L-n)
	return max(e, 0)
}

func TestClassRule(t *testing.T) {
	mism := map[bool]int{}
	var examples []string
	for _, share := range []float64{0.1, 0.25, 0.3} {
		for L := int64(1); L <= 21; L++ {
			for c := 0; c <= 8; c++ {
				for n := int64(1); n <= L; n++ {
					for used := int64(0); used <= L; used++ {
						l := adaptive.New(weighted.New(1), L, &adaptive.Gradient{}, adaptive.WithBounds(L, L), adaptive.WithClassShare(share))
						if used > 0 {
							require.True(t, l.TryAcquire(used))
						}
						r0 := l.Refused()
						tk, ok := l.TryStartClass(c, n)
						if ok {
							tk.Done(true)
						} else {
							assert.Equal(t, r0+1, l.Refused())
						}
						require.EqualValues(t, used, l.InFlight())
						free := L - used
						for _, pc := range []bool{false, true} {
							want := free >= n+classExtra(L, n, c, share, pc)
							if want != ok {
								mism[pc]++
								if !pc && len(examples) < 40 {
									examples = append(examples, fmt.Sprintf("share=%g L=%d c=%d n=%d used=%d: admitted=%v want(ceil(c*share*L))=%v", share, L, c, n, used, ok, want))
								}
							}
						}
						// one-permit statement: refused (for class) only while at least half the limit is in use
						if n == 1 && c > 0 && !ok && free >= 1 {
							assert.GreaterOrEqual(t, 2*used, L, "share=%g L=%d c=%d used=%d refused with less than half in use", share, L, c, used)
						}
					}
				}
			}
		}
	}
	t.Logf("mismatches: ceil(c*share*L)=%d, c*ceil(share*L)=%d", mism[false], mism[true])
	for _, e := range examples {
		t.Log(e)
	}
	assert.Zero(t, min(mism[false], mism[true]), "neither reading of the doc matches")
}

func TestStartClassNeverWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := adaptive.New(weighted.New(1), 10, &adaptive.Gradient{}, adaptive.WithBounds(10, 10))
		require.True(t, l.TryAcquire(9))
		t0 := time.Now()
		_, err := l.StartClass(context.Background(), 1, 1) // needs 1+1 free
		assert.ErrorIs(t, err, adaptive.ErrClassRefused)
		assert.ErrorIs(t, err, adaptive.ErrLimitExceeded)
		assert.Equal(t, time.Duration(0), time.Since(t0))
		require.True(t, l.TryAcquire(1))
		_, err = l.StartClass(context.Background(), 1, 1) // nothing free
		assert.ErrorIs(t, err, adaptive.ErrClassRefused, "class >0 at a full limit")
		assert.Equal(t, time.Duration(0), time.Since(t0))
		assert.EqualValues(t, 2, l.Refused())
		l.Release(10)
	})
}

func TestCountersAndOnLimitChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		type ch struct{ old, new, lim int64 }
		var mu sync.Mutex
		var calls []ch
		var l *adaptive.Limiter
		s := &script{next: 5}
		l = adaptive.New(weighted.New(1), 5, s, adaptive.WithBounds(2, 12), adaptive.WithOnLimitChange(func(o, n int64) {
			mu.Lock()
			calls = append(calls, ch{o, n, l.Limit()})
			mu.Unlock()
		}))
		for _, v := range []float64{9, 3, 100, -7, 0.4, 7.6, math.Inf(1), math.NaN(), 6} {
			s.set(v)
			drive(t, l, s, 4, 10*time.Millisecond, 3)
			assert.GreaterOrEqual(t, l.Limit(), int64(2), "proposal %v", v)
			assert.LessOrEqual(t, l.Limit(), int64(12), "proposal %v", v)
		}
		mu.Lock()
		defer mu.Unlock()
		prev := int64(5)
		for i, c := range calls {
			assert.Equal(t, prev, c.old, "call %d old", i)
			assert.NotEqual(t, c.old, c.new, "call %d is no change", i)
			assert.True(t, c.new >= 2 && c.new <= 12, "call %d new %d out of bounds", i, c.new)
			prev = c.new
		}
		assert.Equal(t, prev, l.Limit(), "last call's new is the limit")
		t.Logf("calls: %v", calls)
		assert.Zero(t, s.overlap.Load(), "Next called concurrently")
	})
}

func TestQueuedAndRefusedCounters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := adaptive.New(weighted.New(1), 3, &adaptive.Gradient{}, adaptive.WithBounds(3, 3))
		require.NoError(t, l.Acquire(context.Background(), 3))
		assert.EqualValues(t, 3, l.InFlight())
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error)
		go func() { _, err := l.Start(ctx, 2); errc <- err }()
		synctest.Wait()
		assert.EqualValues(t, 2, l.Queued(), "Queued reports permits asked")
		_, ok := l.TryStart(1)
		assert.False(t, ok)
		assert.EqualValues(t, 1, l.Refused())
		cancel()
		assert.ErrorIs(t, <-errc, context.Canceled)
		assert.EqualValues(t, 0, l.Queued())
		assert.EqualValues(t, 1, l.Refused(), "ctx-ended not counted")
		l.Release(3)
		assert.EqualValues(t, 0, l.InFlight())
	})
}

// No barging: while a Start waits, TryStart must not take a freed permit ahead of it.
func TestNoBargingAndFIFO(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := adaptive.New(weighted.New(1), 2, &adaptive.Gradient{}, adaptive.WithBounds(2, 2))
		require.NoError(t, l.Acquire(context.Background(), 2))
		order := make(chan int, 3)
		go func() {
			tk, err := l.Start(context.Background(), 2)
			if err == nil {
				order <- 1
				tk.Done(true)
			}
		}()
		synctest.Wait()
		go func() { require.NoError(t, l.Acquire(context.Background(), 1)); order <- 2; l.Release(1) }()
		synctest.Wait()
		l.Release(1)
		_, ok := l.TryStart(1)
		assert.False(t, ok, "TryStart barged past a waiting Start")
		if ok {
			return
		}
		l.Release(1)
		assert.Equal(t, 1, <-order)
		assert.Equal(t, 2, <-order)
	})
}

// Shrinking never revokes; a waiter larger than the new limit fails with ErrExceedsSize.
func TestShrinkBelowWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &script{next: 20}
		l := adaptive.New(weighted.New(1), 20, s, adaptive.WithBounds(1, 20))
		var toks []adaptive.Token
		for range 14 {
			tk, ok := l.TryStart(1)
			require.True(t, ok)
			toks = append(toks, tk)
		}
		errA := make(chan error, 1)
		errS := make(chan error, 1)
		go func() { errA <- l.Acquire(context.Background(), 18) }()
		synctest.Wait()
		go func() { _, err := l.Start(context.Background(), 15); errS <- err }()
		synctest.Wait()
		assert.EqualValues(t, 15, l.Queued())
		s.set(3)
		time.Sleep(30 * time.Millisecond)
		for _, tk := range toks[:11] {
			tk.Done(true)
		}
		synctest.Wait()
		t.Logf("windows %d limit %d inflight %d", s.nwin(), l.Limit(), l.InFlight())
		require.EqualValues(t, 3, l.Limit())
		assert.EqualValues(t, 3, l.InFlight(), "never revoked")
		select {
		case err := <-errA:
			assert.ErrorIs(t, err, sem.ErrExceedsSize, "Acquire(18) at limit 3")
		default:
			t.Errorf("Acquire(18) still waiting at limit 3")
		}
		select {
		case err := <-errS:
			assert.ErrorIs(t, err, sem.ErrExceedsSize, "Start(15) at limit 3")
		default:
			t.Errorf("Start(15) still waiting at limit 3")
		}
		_, ok := l.TryStart(1)
		assert.False(t, ok, "3 held at limit 3")
		for _, tk := range toks[11:] {
			tk.Done(true)
		}
		_, err := l.Start(context.Background(), 4)
		assert.ErrorIs(t, err, sem.ErrExceedsSize)
		assert.EqualValues(t, 1, l.Refused(), "only the TryStart at a full limit")
	})
}

func TestAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("race")
	}
	l := adaptive.New(weighted.New(1), 100, &adaptive.Gradient{})
	ctx := context.Background()
	cases := map[string]func(){
		"Start+Done":         func() { tk, _ := l.Start(ctx, 1); tk.Done(true) },
		"TryStart+Done":      func() { tk, _ := l.TryStart(1); tk.Done(false) },
		"Start+Report":       func() { tk, _ := l.Start(ctx, 1); tk.Report(time.Millisecond, true) },
		"StartClass+Done":    func() { tk, _ := l.StartClass(ctx, 2, 1); tk.Done(true) },
		"TryStartClass+Done": func() { tk, _ := l.TryStartClass(3, 1); tk.Done(true) },
		"Start deadline ctx": func() { tk, _ := l.Start(ctx, 1); tk.Done(true) },
	}
	for name, f := range cases {
		assert.Zero(t, testing.AllocsPerRun(20000, f), name)
	}
	// refusals
	full := adaptive.New(weighted.New(1), 1, &adaptive.Gradient{}, adaptive.WithMaxWait(0))
	full.TryAcquire(1)
	assert.Zero(t, testing.AllocsPerRun(1000, func() { full.TryStart(1) }), "refused TryStart")
	t.Logf("refused Start allocs: %v", testing.AllocsPerRun(1000, func() { full.Start(ctx, 1) }))
}

func TestRace(t *testing.T) {
	l := adaptive.New(weighted.New(1), 20, &adaptive.Vegas{}, adaptive.WithBounds(2, 40), adaptive.WithMaxWait(time.Millisecond))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3000 {
				ctx, c := context.WithTimeout(context.Background(), time.Duration(i%5)*time.Millisecond)
				n := int64(1 + (g+i)%2)
				switch i % 5 {
				case 0:
					if tk, err := l.Start(ctx, n); err == nil {
						time.Sleep(time.Duration(i%3) * 50 * time.Microsecond)
						tk.Done(i%7 != 0)
					}
				case 1:
					if tk, ok := l.TryStartClass(i%4, n); ok {
						tk.Report(time.Duration(i%100)*time.Microsecond, true)
					}
				case 2:
					if l.Acquire(ctx, n) == nil {
						l.Release(n)
					}
				case 3:
					if tk, err := l.StartClass(ctx, i%3, n); err == nil {
						tk.Done(true)
					}
				default:
					if tk, ok := l.TryStart(n); ok {
						tk.Done(true)
					}
				}
				c()
				if lim := l.Limit(); lim < 2 || lim > 40 {
					t.Errorf("limit %d out of bounds", lim)
				}
			}
		}()
	}
	wg.Wait()
	assert.EqualValues(t, 0, l.InFlight())
	assert.EqualValues(t, 0, l.Queued())
}

var _ = errors.Is
