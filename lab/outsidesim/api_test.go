package outsidesim

import (
	"context"
	"errors"
	"fmt"
	"runtime"
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

// ctl is an Algorithm whose proposal the test sets, and which records windows.
type ctl struct {
	mu    sync.Mutex
	v     float64 // 0: keep w.Limit
	inner adaptive.Algorithm
	wins  []adaptive.Window
}

func (c *ctl) Next(w adaptive.Window) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wins = append(c.wins, w)
	if c.inner != nil {
		return c.inner.Next(w)
	}
	if c.v == 0 {
		return w.Limit
	}
	return c.v
}

func (c *ctl) set(v float64) { c.mu.Lock(); c.v = v; c.mu.Unlock() }
func (c *ctl) windows() []adaptive.Window {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]adaptive.Window(nil), c.wins...)
}

// teach runs n sequential requests of the given latency, so the Limiter
// learns a no-load latency and closes windows.
func teach(l *adaptive.Limiter, n int, lat time.Duration, ok bool) {
	for range n {
		tok, good := l.TryStart(1)
		if !good {
			panic("teach: full")
		}
		time.Sleep(lat)
		tok.Done(ok)
	}
}

func TestInitialLimit(t *testing.T) {
	s := weighted.New(1)
	l := adaptive.New(s, 7, &adaptive.Gradient{})
	assert.EqualValues(t, 7, l.Limit())
	assert.EqualValues(t, 7, s.Size(), "wrapped semaphore resized at once")
	assert.Zero(t, l.InFlight())
	assert.Zero(t, l.Queued())
	assert.Zero(t, l.Refused())
}

func TestNewAndOptionPanics(t *testing.T) {
	g := func() adaptive.Algorithm { return &adaptive.Gradient{} }
	cases := map[string]func(){
		"initial 0":         func() { adaptive.New(weighted.New(1), 0, g()) },
		"initial below min": func() { adaptive.New(weighted.New(1), 1, g(), adaptive.WithBounds(2, 5)) },
		"initial above max": func() { adaptive.New(weighted.New(1), 6, g(), adaptive.WithBounds(2, 5)) },
		"nil alg":           func() { adaptive.New(weighted.New(1), 2, nil) },
		"bounds min 0":      func() { adaptive.New(weighted.New(1), 2, g(), adaptive.WithBounds(0, 5)) },
		"bounds max<min":    func() { adaptive.New(weighted.New(1), 2, g(), adaptive.WithBounds(3, 2)) },
		"class share 0":     func() { adaptive.New(weighted.New(1), 2, g(), adaptive.WithClassShare(0)) },
		"class share 1":     func() { adaptive.New(weighted.New(1), 2, g(), adaptive.WithClassShare(1)) },
		"smoothing 0":       func() { adaptive.New(weighted.New(1), 2, g(), adaptive.WithSmoothing(0)) },
		"smoothing 1.01":    func() { adaptive.New(weighted.New(1), 2, g(), adaptive.WithSmoothing(1.01)) },
		"max wait negative": func() { adaptive.New(weighted.New(1), 2, g(), adaptive.WithMaxWait(-1)) },
		"permits held":      func() { s := weighted.New(3); s.TryAcquire(1); adaptive.New(s, 2, g()) },
		"Start n<0":         func() { adaptive.New(weighted.New(1), 2, g()).Start(context.Background(), -1) },
		"StartClass c<0":    func() { adaptive.New(weighted.New(1), 2, g()).StartClass(context.Background(), -1, 1) },
		"TryStartClass c<0": func() { adaptive.New(weighted.New(1), 2, g()).TryStartClass(-1, 1) },
		"TryStart n<0":      func() { adaptive.New(weighted.New(1), 2, g()).TryStart(-1) },
		"Release more":      func() { adaptive.New(weighted.New(1), 2, g()).Release(1) },
	}
	for name, f := range cases {
		assert.Panics(t, f, name)
	}
	ok := map[string]func(){
		"smoothing 1":  func() { adaptive.New(weighted.New(1), 2, g(), adaptive.WithSmoothing(1)) },
		"max wait 0":   func() { adaptive.New(weighted.New(1), 2, g(), adaptive.WithMaxWait(0)) },
		"bounds equal": func() { adaptive.New(weighted.New(1), 2, g(), adaptive.WithBounds(2, 2)) },
		"nil rand":     func() { adaptive.New(weighted.New(1), 2, g(), adaptive.WithRand(nil)) },
	}
	for name, f := range ok {
		assert.NotPanics(t, f, name)
	}
}

func TestReleaseMorePanicsChangingNothing(t *testing.T) {
	l := adaptive.New(weighted.New(1), 4, &adaptive.Gradient{})
	require.True(t, l.TryAcquire(2))
	assert.Panics(t, func() { l.Release(3) })
	assert.EqualValues(t, 2, l.InFlight())
	l.Release(2)
	assert.EqualValues(t, 0, l.InFlight())
}

func TestObservabilityCounts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := adaptive.New(weighted.New(1), 3, &adaptive.Gradient{}, adaptive.WithBounds(3, 3))
		tok, ok := l.TryStart(1)
		require.True(t, ok)
		require.NoError(t, l.Acquire(context.Background(), 1))
		require.True(t, l.TryAcquire(1))
		assert.EqualValues(t, 3, l.InFlight(), "tokens and Acquire both count")
		_, ok = l.TryStart(1)
		assert.False(t, ok)
		assert.EqualValues(t, 1, l.Refused(), "TryStart refusal counted")
		// Before any latency is seen, Start waits as Acquire does (no bound).
		got := make(chan error, 1)
		go func() {
			tk, err := l.Start(context.Background(), 1)
			if err == nil {
				defer tk.Done(true)
			}
			got <- err
		}()
		time.Sleep(10 * time.Second)
		synctest.Wait()
		assert.EqualValues(t, 1, l.Queued(), "Queued counts the waiting Start")
		select {
		case err := <-got:
			t.Fatalf("Start before any latency returned %v; docs say it waits as Acquire does", err)
		default:
		}
		l.Release(1)
		assert.NoError(t, <-got)
		assert.EqualValues(t, 0, l.Queued())
		tok.Done(true)
		// a cancelled wait is not counted as refused
		ctx, cancel := context.WithCancel(context.Background())
		before := l.Refused()
		go func() { time.Sleep(time.Millisecond); cancel() }()
		for l.InFlight() < 3 {
			l.TryAcquire(1)
		}
		_, err := l.Start(ctx, 1)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, before, l.Refused(), "context end not counted")
	})
}

// TestStartErrors checks the error kinds of Start once a latency is known
// (limit 4: see TestStartWaitsWithNobodyAhead for limits 2 and 3).
func TestStartErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := adaptive.New(weighted.New(1), 4, &adaptive.Gradient{}, adaptive.WithBounds(4, 4))
		teach(l, 2000, 10*time.Millisecond, true)
		var toks []adaptive.Token
		for range 4 {
			tk, _ := l.TryStart(1)
			toks = append(toks, tk)
		}
		res := make(chan error, 1)
		var waited time.Duration
		go func() {
			st := time.Now()
			_, err := l.Start(context.Background(), 1)
			waited = time.Since(st)
			res <- err
		}()
		synctest.Wait()
		assert.EqualValues(t, 1, l.Queued())
		// one queued ahead: 1 × 10 ms / 4 = 2.5 ms; two ahead would be 5 ms.
		go func() { l.Start(context.Background(), 1) }()
		synctest.Wait()
		st := time.Now()
		_, err := l.Start(context.Background(), 1)
		assert.ErrorIs(t, err, adaptive.ErrLimitExceeded)
		assert.Zero(t, time.Since(st), "ErrLimitExceeded is at once")
		err = <-res
		assert.ErrorIs(t, err, adaptive.ErrQueueTimeout)
		t.Logf("first waiter waited %v (docs: a quarter of the no-load latency, 10ms)", waited)
		assert.InDelta(t, float64(2500*time.Microsecond), float64(waited), float64(time.Millisecond))
		time.Sleep(time.Second)
		assert.EqualValues(t, 3, l.Refused())
		// ctx cancelled while waiting: ctx.Err(), not counted
		ctx, cancel := context.WithCancel(context.Background())
		go func() { time.Sleep(time.Millisecond); cancel() }()
		_, err = l.Start(ctx, 1)
		assert.ErrorIs(t, err, context.Canceled)
		assert.EqualValues(t, 3, l.Refused())
		// A done context acquires nothing even when a permit is free.
		toks[0].Done(true)
		_, err = l.Start(ctx, 1)
		assert.ErrorIs(t, err, context.Canceled, "done context acquires nothing")
		assert.EqualValues(t, 3, l.InFlight())
		for _, tk := range toks[1:] {
			tk.Done(true)
		}
	})
}

// TestMaxWaitZeroRefusesAtOnce: WithMaxWait(0) makes Start refuse at once when full.
func TestMaxWaitZeroRefusesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := adaptive.New(weighted.New(1), 1, &adaptive.Gradient{}, adaptive.WithBounds(1, 1), adaptive.WithMaxWait(0))
		teach(l, 500, 10*time.Millisecond, true)
		a, _ := l.TryStart(1)
		st := time.Now()
		_, err := l.Start(context.Background(), 1)
		assert.Zero(t, time.Since(st))
		assert.ErrorIs(t, err, adaptive.ErrLimitExceeded)
		a.Done(true)
	})
}

// TestOnLimitChangeEveryChangeInOrder drives a controlled algorithm through
// a sequence of limits, with the bounds and smoothing in play.
func TestOnLimitChangeEveryChangeInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &ctl{}
		var got [][2]int64
		l := adaptive.New(weighted.New(1), 5, c, adaptive.WithBounds(2, 40),
			adaptive.WithOnLimitChange(func(o, n int64) { got = append(got, [2]int64{o, n}) }))
		var seen []int64
		last := l.Limit()
		seq := []float64{9, 9, 30, 100, 1, 0.2, 17.4, 17.6, 3}
		for _, v := range seq {
			c.set(v)
			for range 300 {
				teach(l, 1, 10*time.Millisecond, true)
				if x := l.Limit(); x != last {
					seen = append(seen, x)
					last = x
				}
				if x := l.Limit(); x < 2 || x > 40 {
					t.Fatalf("limit %d outside bounds", x)
				}
			}
		}
		prev := int64(5)
		for _, g := range got {
			assert.Equal(t, prev, g[0], "old is the previous new: %v", got)
			assert.NotEqual(t, g[0], g[1])
			prev = g[1]
		}
		var news []int64
		for _, g := range got {
			news = append(news, g[1])
		}
		assert.Equal(t, seen, news, "callbacks vs observed Limit changes")
		t.Logf("changes %v", got)
	})
}

// TestOnLimitChangeConcurrent: many goroutines end requests; callbacks must
// chain (old == previous new) and end at Limit().
func TestOnLimitChangeConcurrent(t *testing.T) {
	c := &ctl{}
	var mu sync.Mutex
	var got [][2]int64
	var inCb atomic.Int32
	var overlap atomic.Int32
	l := adaptive.New(weighted.New(1), 10, c, adaptive.WithBounds(1, 100),
		adaptive.WithOnLimitChange(func(o, n int64) {
			if inCb.Add(1) > 1 {
				overlap.Add(1)
			}
			mu.Lock()
			got = append(got, [2]int64{o, n})
			mu.Unlock()
			inCb.Add(-1)
		}))
	stop := time.Now().Add(1500 * time.Millisecond)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := 0
			for time.Now().Before(stop) {
				i++
				if g == 0 && i%50 == 0 {
					c.set(float64(5 + (i/50)%20))
				}
				tok, err := l.Start(context.Background(), 1)
				if err != nil {
					continue
				}
				time.Sleep(50 * time.Microsecond)
				tok.Done(i%7 != 0)
			}
		}()
	}
	wg.Wait()
	prev := int64(10)
	bad := 0
	for _, g := range got {
		if g[0] != prev || g[0] == g[1] {
			bad++
		}
		prev = g[1]
	}
	t.Logf("%d changes, %d out of order, %d overlapping calls", len(got), bad, overlap.Load())
	assert.Zero(t, bad)
	assert.Zero(t, overlap.Load())
	assert.Equal(t, prev, l.Limit())
}

func TestZeroAllocs(t *testing.T) {
	l := adaptive.New(weighted.New(1), 1000, &adaptive.Gradient{})
	ctx := context.Background()
	dctx, cancel := context.WithTimeout(ctx, time.Hour)
	defer cancel()
	var ms runtime.MemStats
	for name, f := range map[string]func(){
		"Start+Done":           func() { tk, _ := l.Start(ctx, 1); tk.Done(true) },
		"Start(deadline)+Done": func() { tk, _ := l.Start(dctx, 1); tk.Done(true) },
		"TryStart+Done":        func() { tk, _ := l.TryStart(1); tk.Done(true) },
		"TryStart+Done(false)": func() { tk, _ := l.TryStart(1); tk.Done(false) },
		"Start+Report":         func() { tk, _ := l.Start(ctx, 1); tk.Report(time.Millisecond, true) },
	} {
		// over wall time, so that windows close and the limit moves
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.Mallocs
		n := 0
		for st := time.Now(); time.Since(st) < 300*time.Millisecond; n++ {
			f()
		}
		runtime.ReadMemStats(&ms)
		t.Logf("%s: %d calls, %d mallocs, limit %d", name, n, ms.Mallocs-before, l.Limit())
		assert.Less(t, float64(ms.Mallocs-before)/float64(n), 0.001, name)
		assert.Zero(t, testing.AllocsPerRun(2000, f), name)
	}
}

// TestQueueTimeIsNotBackendFailure: a request that waited longer than it
// then ran and failed must not count as the backend's failure.
func TestQueueTimeIsNotBackendFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &ctl{}
		l := adaptive.New(weighted.New(1), 1, c, adaptive.WithBounds(1, 1), adaptive.WithMaxWait(time.Second))
		teach(l, 1000, 10*time.Millisecond, true)
		n0 := len(c.windows())
		drops := func(from int) (d int64, minrtt time.Duration) {
			for _, w := range c.windows()[from:] {
				d += w.Drops
				if w.MinRTT > minrtt {
					minrtt = w.MinRTT
				}
			}
			return
		}
		// 50 rounds: holder runs 100ms, waiter waits 100ms then runs 5ms and fails.
		for range 50 {
			h, ok := l.TryStart(1)
			require.True(t, ok)
			done := make(chan struct{})
			go func() {
				defer close(done)
				tk, err := l.Start(context.Background(), 1)
				if err != nil {
					t.Errorf("waiter: %v", err)
					return
				}
				time.Sleep(5 * time.Millisecond)
				tk.Done(false)
			}()
			time.Sleep(10 * time.Millisecond)
			h.Done(true)
			<-done
			teach(l, 20, 10*time.Millisecond, true)
		}
		teach(l, 500, 10*time.Millisecond, true)
		d, _ := drops(n0)
		t.Logf("drops counted for queue-caused failures: %d", d)
		assert.Zero(t, d, "failures after a long queue wait counted against the backend")
		// control: same failures without waiting do count
		n1 := len(c.windows())
		for range 50 {
			tk, _ := l.TryStart(1)
			time.Sleep(5 * time.Millisecond)
			tk.Done(false)
		}
		teach(l, 500, 10*time.Millisecond, true)
		d2, _ := drops(n1)
		t.Logf("control drops: %d", d2)
		assert.Positive(t, d2)
	})
}

// TestLatencyMeasuredFromGrant: wait time is not part of the latency.
func TestLatencyMeasuredFromGrant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &ctl{}
		l := adaptive.New(weighted.New(1), 1, c, adaptive.WithBounds(1, 1), adaptive.WithMaxWait(time.Second))
		teach(l, 1000, 10*time.Millisecond, true)
		n0 := len(c.windows())
		for range 200 {
			h, _ := l.TryStart(1)
			done := make(chan struct{})
			go func() {
				defer close(done)
				tk, err := l.Start(context.Background(), 1)
				if err == nil {
					time.Sleep(10 * time.Millisecond)
					tk.Done(true)
				}
			}()
			synctest.Wait()
			time.Sleep(10 * time.Millisecond)
			h.Done(true)
			<-done
		}
		teach(l, 200, 10*time.Millisecond, true)
		for _, w := range c.windows()[n0:] {
			if w.Samples > 0 && w.Drops == 0 {
				assert.LessOrEqual(t, w.MeanRTT, 11*time.Millisecond, "window mean includes queue time: %+v", w)
			}
		}
	})
}

// TestAcquireTeachesNothing: Acquire/TryAcquire report no latency.
func TestAcquireTeachesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &ctl{}
		l := adaptive.New(weighted.New(1), 4, c)
		for range 2000 {
			require.NoError(t, l.Acquire(context.Background(), 1))
			time.Sleep(10 * time.Millisecond)
			l.Release(1)
			if l.TryAcquire(1) {
				time.Sleep(time.Millisecond)
				l.Release(1)
			}
		}
		for _, w := range c.windows() {
			assert.Zero(t, w.Samples, "window from Acquire: %+v", w)
		}
		t.Logf("windows closed by Acquire-only traffic: %d", len(c.windows()))
	})
}

// classAdmits reports whether TryStartClass(c, n) admits with inUse permits held.
func classAdmits(limit, inUse int64, share float64, c int, n int64) (bool, int64) {
	l := adaptive.New(weighted.New(1), limit, &adaptive.Gradient{}, adaptive.WithBounds(limit, limit), adaptive.WithClassShare(share))
	if inUse > 0 && !l.TryAcquire(inUse) {
		panic("hold")
	}
	tk, ok := l.TryStartClass(c, n)
	in := l.InFlight()
	if ok {
		tk.Done(true)
	}
	return ok, in - inUse
}

func TestClassesAsDocumented(t *testing.T) {
	for _, share := range []float64{0.1, 0.2, 0.25, 0.3, 0.05, 0.45} {
		halfViol := 0
		firstViol := map[int64]string{}
		for limit := int64(1); limit <= 41; limit++ {
			for inUse := int64(0); inUse < limit; inUse++ {
				prev := true
				for c := 0; c <= 30; c++ {
					ok, took := classAdmits(limit, inUse, share, c, 1)
					if ok && took != 1 {
						t.Errorf("share %v limit %d inUse %d class %d: holds %d after admission, want 1", share, limit, inUse, c, took)
					}
					if c == 0 && !ok {
						t.Errorf("class 0 refused with a permit free (limit %d, inUse %d)", limit, inUse)
					}
					if 2*inUse < limit && !ok {
						halfViol++
						if _, seen := firstViol[limit]; !seen {
							firstViol[limit] = fmt.Sprintf("limit %d, %d in use (free %d): class %d refused", limit, inUse, limit-inUse, c)
						}
					}
					if ok && !prev {
						t.Errorf("share %v limit %d inUse %d: class %d admitted but class %d refused", share, limit, inUse, c, c-1)
					}
					prev = ok
				}
			}
		}
		if halfViol > 0 {
			var ex []string
			for lim := int64(1); lim <= 41; lim++ {
				if v, ok := firstViol[lim]; ok && len(ex) < 6 {
					ex = append(ex, v)
				}
			}
			t.Errorf("share %v: %d (limit, in use, class) cases refused while less than half the limit is in use; limits affected %d; e.g. %v", share, halfViol, len(firstViol), ex)
		}
		// distinct classes at a limit of 100
		var profiles []string
		for c := 0; c <= 30; c++ {
			p := ""
			for inUse := int64(0); inUse < 100; inUse++ {
				ok, _ := classAdmits(100, inUse, share, c, 1)
				if ok {
					p += "1"
				} else {
					p += "0"
				}
			}
			if len(profiles) == 0 || profiles[len(profiles)-1] != p {
				profiles = append(profiles, p)
			}
		}
		want := 1 + 1/(2*share)
		t.Logf("share %v: %d distinct classes at limit 100 (docs: 1 + 1/(2×share) rounded up = %.2f)", share, len(profiles), want)
	}
}

func TestStartClassNeverWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := adaptive.New(weighted.New(1), 10, &adaptive.Gradient{}, adaptive.WithBounds(10, 10), adaptive.WithMaxWait(time.Hour))
		teach(l, 500, 10*time.Millisecond, true)
		require.True(t, l.TryAcquire(6))
		r0 := l.Refused()
		st := time.Now()
		// 6 of 10 in use: class 5 must leave 5 free beyond its own: refused
		_, err := l.StartClass(context.Background(), 5, 1)
		assert.ErrorIs(t, err, adaptive.ErrClassRefused)
		assert.ErrorIs(t, err, adaptive.ErrLimitExceeded)
		assert.Zero(t, time.Since(st))
		_, ok := l.TryStartClass(5, 1)
		assert.False(t, ok)
		t.Logf("Refused after one StartClass + one TryStartClass class refusal: +%d", l.Refused()-r0)
		require.True(t, l.TryAcquire(4))
		// class 0 waits as Start does
		res := make(chan error, 1)
		go func() {
			tk, err := l.StartClass(context.Background(), 0, 1)
			if err == nil {
				tk.Done(true)
			}
			res <- err
		}()
		time.Sleep(time.Second)
		synctest.Wait()
		assert.EqualValues(t, 1, l.Queued())
		l.Release(1)
		assert.NoError(t, <-res)
		l.Release(9)
	})
}

// TestClassesUnderOverload: open-loop-ish: three classes over a backend of
// fixed capacity; lower classes must be refused first, class 0 keep its share.
func TestClassesUnderOverload(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := adaptive.New(weighted.New(1), 20, &adaptive.Gradient{})
		// backend: 8 slots; beyond, latency grows linearly (simple M/M/c-ish)
		var admitted, offered [6]int
		var inflight atomic.Int64
		var wg sync.WaitGroup
		stop := time.Now().Add(20 * time.Second)
		i := 0
		for time.Now().Before(stop) {
			i++
			c := []int{0, 0, 2, 4, 5, 5}[i%6] // 1/3 class 0, 1/6 class 2, 1/6 class 4, 1/3 class 5
			offered[c]++
			tk, ok := l.TryStartClass(c, 1)
			if ok {
				admitted[c]++
				wg.Add(1)
				n := inflight.Add(1)
				go func() {
					defer wg.Done()
					d := 10 * time.Millisecond
					if n > 8 {
						d = d * time.Duration(n) / 8
					}
					time.Sleep(d)
					inflight.Add(-1)
					tk.Done(true)
				}()
			}
			time.Sleep(10 * time.Millisecond / 16) // 1600/s offered vs 800/s capacity
		}
		wg.Wait()
		for _, c := range []int{0, 2, 4, 5} {
			t.Logf("class %d: admitted %d of %d (%.0f%%)", c, admitted[c], offered[c], 100*float64(admitted[c])/float64(offered[c]))
		}
		frac := func(c int) float64 { return float64(admitted[c]) / float64(offered[c]) }
		assert.GreaterOrEqual(t, frac(0), frac(2))
		assert.GreaterOrEqual(t, frac(2), frac(4))
		assert.GreaterOrEqual(t, frac(4)+0.01, frac(5))
		assert.Greater(t, frac(0), 0.9, "class 0 keeps its share")
	})
}

var _ = fmt.Sprint
var _ = errors.Is

// TestStartExceedsSizeAfterLatency: minimal repro. Docs (Start): "a request
// larger than the limit fails with an error wrapping sem.ErrExceedsSize".
func TestStartExceedsSizeAfterLatency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := adaptive.New(weighted.New(1), 2, &adaptive.Gradient{}, adaptive.WithBounds(2, 2))
		_, err := l.Start(context.Background(), 3)
		assert.ErrorIs(t, err, sem.ErrExceedsSize, "before any latency")
		teach(l, 100, 10*time.Millisecond, true)
		r0 := l.Refused()
		_, err = l.Start(context.Background(), 3) // idle limiter, limit 2
		assert.ErrorIs(t, err, sem.ErrExceedsSize, "after a latency was seen, idle limiter")
		assert.Equal(t, r0, l.Refused(), "an oversized request is not a refusal of a full limit")
	})
}

// TestSmoothing: WithSmoothing(f) moves the limit the fraction f of the way
// to each proposal.
func TestSmoothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &ctl{}
		c.set(30)
		var got [][2]int64
		l := adaptive.New(weighted.New(1), 10, c, adaptive.WithSmoothing(0.5),
			adaptive.WithOnLimitChange(func(o, n int64) { got = append(got, [2]int64{o, n}) }))
		for len(got) == 0 {
			teach(l, 1, 10*time.Millisecond, true)
		}
		t.Logf("first change with smoothing 0.5 from 10 toward 30: %v (windows %d)", got[0], len(c.windows()))
		assert.EqualValues(t, 20, got[0][1])
	})
}
