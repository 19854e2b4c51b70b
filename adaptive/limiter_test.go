package adaptive_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/semtest"
	"github.com/semacat/sem/weighted"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestConformance runs the contract on a Limiter over weighted. weighted
// claims FIFO, NoBarging and NoStarvation; a Limiter keeps FIFO and
// NoBarging (it forwards to weighted, which stays FIFO across a resize) but
// not NoStarvation: a waiting Acquire as large as the size fails with
// ErrExceedsSize once the limit shrinks below it, instead of completing.
// The Resize family is skipped, since the limit owns the size, and so are
// Snapshot, Close and Observe, which a Limiter does not offer.
func TestConformance(t *testing.T) {
	semtest.Run(t, func(size int64) sem.Semaphore {
		return adaptive.New(weighted.New(1), size, &adaptive.AIMD{})
	}, semtest.Guarantees{FIFO: true, NoBarging: true})
}

// started admits n requests through tokens, each taking one permit.
func started(t *testing.T, l *adaptive.Limiter, n int) []adaptive.Token {
	toks := make([]adaptive.Token, n)
	for i := range toks {
		tok, ok := l.TryStart(1)
		require.True(t, ok, "request %d of %d not admitted at limit %d", i, n, l.Limit())
		toks[i] = tok
	}
	return toks
}

// noLoad is the lowest latency the tests report: a window lasts at least
// twice that.
const noLoad = 10 * time.Millisecond

// round runs one window: after an idle pause as long as a window, inFlight
// requests start together, take latency, and end with ok; it returns the
// limit afterwards.
func round(t *testing.T, l *adaptive.Limiter, inFlight int, latency time.Duration, ok bool) int64 {
	time.Sleep(2 * noLoad)
	toks := started(t, l, inFlight)
	time.Sleep(latency)
	for _, tok := range toks {
		tok.Done(ok)
	}
	return l.Limit()
}

func TestTokenMeasuresAndReleases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(1)
		l := adaptive.New(s, 4, &adaptive.AIMD{})
		require.EqualValues(t, 4, s.Size(), "New sizes the wrapped semaphore")
		toks := started(t, l, 4)
		_, ok := l.TryStart(1)
		require.False(t, ok, "a fifth request fits in a limit of 4")
		for _, tok := range toks {
			tok.Done(true)
		}
		require.EqualValues(t, 4, s.Available(), "Done gives the permits back")
	})
}

// recorder proposes fixed limits in turn and keeps the windows it saw.
type recorder struct {
	next []float64
	seen []adaptive.Window
}

func (r *recorder) Next(w adaptive.Window) float64 {
	r.seen = append(r.seen, w)
	n := r.next[0]
	r.next = r.next[1:]
	return n
}

// TestWindow: a window closes at the first request that ends once it has
// lasted twice the lowest latency and holds 10 samples, and tells the
// algorithm what happened in it.
func TestWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{next: []float64{30, 25}}
		l := adaptive.New(weighted.New(1), 20, r)
		round(t, l, 9, noLoad, true)
		require.Empty(t, r.seen, "9 samples close no window")
		round(t, l, 1, noLoad, false) // the tenth closes it: no window was known yet
		require.Len(t, r.seen, 1)
		assert.Equal(t, adaptive.Window{Limit: 20, InFlight: 9, Samples: 10, Drops: 1, DropRate: 0.1,
			MinRTT: noLoad, MeanRTT: noLoad, NoLoadRTT: noLoad}, r.seen[0], "a failure counts as a drop, not a latency")
		assert.EqualValues(t, 30, l.Limit(), "the proposal is taken")

		toks := started(t, l, 12)
		time.Sleep(noLoad)
		for _, tok := range toks[:11] {
			tok.Done(true)
		}
		assert.Len(t, r.seen, 1, "11 samples within 2×noLoad close no window")
		time.Sleep(noLoad)
		toks[11].Report(3*noLoad, true)
		require.Len(t, r.seen, 2, "the first sample after 2×noLoad closes it")
		assert.Equal(t, adaptive.Window{Limit: 30, InFlight: 12, Samples: 12,
			MinRTT: noLoad, MeanRTT: (11*noLoad + 3*noLoad) / 12, NoLoadRTT: noLoad}, r.seen[1])
		assert.EqualValues(t, 25, l.Limit())
	})
}

func TestBoundsAndSmoothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{next: []float64{20, 40, 0, 7}}
		l := adaptive.New(weighted.New(1), 10, r, adaptive.WithBounds(5, 25), adaptive.WithSmoothing(0.5))
		for _, want := range []int64{15, 25, 13, 10} {
			round(t, l, 10, noLoad, true)
			require.EqualValues(t, want, l.Limit(), "after window %d", len(r.seen))
		}
		assert.Equal(t, []float64{10, 15, 25, 12.5}, limits(r.seen),
			"half way to 20, then to 40 capped at 25, then to 0 (12.5), then to 7")
	})
}

func limits(ws []adaptive.Window) []float64 {
	var out []float64
	for _, w := range ws {
		out = append(out, w.Limit)
	}
	return out
}

// ms is a window of n samples, as many in flight, the fastest taking min
// and the no-load latency 10ms.
func ms(limit float64, inFlight int64, min time.Duration, drops int64) adaptive.Window {
	return adaptive.Window{Limit: limit, InFlight: inFlight, Samples: 20, Drops: drops,
		MinRTT: min, MeanRTT: min, NoLoadRTT: noLoad}
}

func TestAIMD(t *testing.T) {
	a := &adaptive.AIMD{}
	assert.Equal(t, 21.0, a.Next(ms(20, 20, noLoad, 0)), "fast, full: +1")
	assert.Equal(t, 20.0, a.Next(ms(20, 9, noLoad, 0)), "under half the limit in use: unchanged")
	assert.Equal(t, 18.0, a.Next(ms(20, 20, noLoad, 1)), "a failure: ×0.9")
	assert.Equal(t, 21.0, a.Next(ms(20, 20, 11*noLoad/10, 0)), "1.1× no-load is tolerated")
	assert.Equal(t, 18.0, a.Next(ms(20, 20, 12*noLoad/10, 0)), "1.2× no-load: ×0.9")
	assert.Equal(t, 18.0, a.Next(ms(20, 20, 0, 20)), "all failed: ×0.9")
	custom := &adaptive.AIMD{Increase: 2, Backoff: 0.5, Tolerance: 2}
	assert.Equal(t, 42.0, custom.Next(ms(40, 40, 19*noLoad/10, 0)))
	assert.Equal(t, 20.0, custom.Next(ms(40, 40, 21*noLoad/10, 0)))
	assert.Equal(t, 21.5, custom.Next(ms(20, 20, noLoad, 0)), "Increase, at most 0.075 of the limit")
}

func TestVegas(t *testing.T) {
	v := &adaptive.Vegas{}
	assert.Equal(t, 42.0, v.Next(ms(40, 40, noLoad, 0)), "no queue: + alpha (5% of 40)")
	assert.Equal(t, 40.0, v.Next(ms(40, 19, noLoad, 0)), "app-limited: unchanged")
	// 40 × (1 − 10/11) = 3.6 queued: between alpha (2) and beta (4).
	assert.Equal(t, 40.0, v.Next(ms(40, 40, 11*noLoad/10, 0)), "a queue within bounds: unchanged")
	// 40 × (1 − 1/2) = 20 queued, beta 4: down by 16.
	assert.Equal(t, 24.0, v.Next(ms(40, 40, 2*noLoad, 0)), "above beta: the excess comes off")
	assert.Equal(t, 36.0, v.Next(ms(40, 40, noLoad, 1)), "a failure: − beta")
	assert.Equal(t, 10.5, v.Next(ms(10, 10, noLoad, 0)), "alpha scales with the limit")
	custom := &adaptive.Vegas{Alpha: 0.1, Beta: 0.5}
	assert.Equal(t, 44.0, custom.Next(ms(40, 40, noLoad, 0)))
	assert.Equal(t, 40.0, custom.Next(ms(40, 40, 2*noLoad, 0)), "20 queued is within 50%")
}

// latencies is a full window of limit requests whose fastest took lowest
// and whose mean latency is mean.
func latencies(limit float64, lowest, mean time.Duration) adaptive.Window {
	return adaptive.Window{Limit: limit, InFlight: int64(limit), Samples: 20,
		MinRTT: lowest, MeanRTT: mean, NoLoadRTT: noLoad}
}

func TestGradient(t *testing.T) {
	g := &adaptive.Gradient{}
	assert.InDelta(t, 100.4, g.Next(latencies(100, noLoad, 3*noLoad)), 1e-9,
		"the fastest as fast as the average, whatever the mean: 0.2 of the way to limit + 2")
	w := latencies(100, noLoad, noLoad)
	w.InFlight = 49
	assert.Equal(t, 100.0, g.Next(w), "under half the limit in use: unchanged")
	// The average of the three windows' fastest is (10+10+40)/3 = 20ms:
	// gradient 0.5, estimate 100 × 0.5 + 2, a fifth of the way there.
	assert.InDelta(t, 100-0.2*48, g.Next(latencies(100, 4*noLoad, 4*noLoad)), 1e-9, "slower than the average: scaled down")
	assert.Equal(t, 100.0, g.Next(latencies(100, 0, 0)), "no success, no latency: unchanged")

	tolerant := &adaptive.Gradient{Tolerance: 2, QueueSize: 10, Smoothing: 1}
	tolerant.Next(latencies(100, noLoad, noLoad))
	assert.InDelta(t, 110, tolerant.Next(latencies(100, 3*noLoad/2, 3*noLoad/2)), 1e-9,
		"within the tolerance: + QueueSize, at most a tenth of the limit")
}

// TestGradientMean: with Mean set, a window whose mean doubles while its
// fastest request is as fast as ever shrinks the limit; by default it
// does not.
func TestGradientMean(t *testing.T) {
	lowest, mean := &adaptive.Gradient{}, &adaptive.Gradient{Mean: true}
	for _, g := range []*adaptive.Gradient{lowest, mean} {
		g.Next(latencies(100, noLoad, noLoad))
	}
	tail := latencies(100, noLoad, 2*noLoad)
	assert.InDelta(t, 100.4, lowest.Next(tail), 1e-9, "the fastest holds: + QueueSize, smoothed")
	// The average of the means is 15ms: gradient 0.75, estimate 77.
	assert.InDelta(t, 100-0.2*23, mean.Next(tail), 1e-9, "the mean is slower than its average: scaled down")
}

// TestGradientForgets: once the backend recovers, an average more than
// twice the window's latency loses a tenth per window, so that a slow past
// does not hold the gradient at 1 while a new queue builds.
func TestGradientForgets(t *testing.T) {
	g := &adaptive.Gradient{Smoothing: 1}
	for range 10 {
		g.Next(latencies(100, 4*noLoad, 4*noLoad)) // the average becomes 40ms
	}
	for range 10 {
		g.Next(latencies(100, noLoad, noLoad)) // recovered: 40ms × 0.9^10 is below 20ms
	}
	assert.Less(t, g.Next(latencies(100, 5*noLoad/2, 5*noLoad/2)), 100.0,
		"25ms is slower than the forgotten average; without forgetting it is far faster than 40ms")
}

func TestShrinkFailsHeavyWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := adaptive.New(weighted.New(1), 12, &adaptive.AIMD{})
		toks := started(t, l, 11)
		errc := make(chan error, 1)
		go func() { errc <- l.Acquire(context.Background(), 12) }()
		synctest.Wait()
		time.Sleep(time.Millisecond)
		for _, tok := range toks[:10] {
			tok.Done(false) // 12 × 0.9: the limit becomes 11
		}
		assert.ErrorIs(t, <-errc, sem.ErrExceedsSize)
		assert.EqualValues(t, 11, l.Limit())
		toks[10].Done(true)
	})
}

// TestNewTakesTheSize: the size the wrapped semaphore was made with is
// replaced by the initial limit, whole: New(weighted.New(1), 10) admits 10.
func TestNewTakesTheSize(t *testing.T) {
	s := weighted.New(1)
	l := adaptive.New(s, 10, &adaptive.AIMD{})
	assert.EqualValues(t, 10, s.Size())
	assert.EqualValues(t, 10, l.Limit())
	require.True(t, l.TryAcquire(10), "the whole initial limit is free")
	l.Release(10)
}

func TestBadInput(t *testing.T) {
	s := weighted.New(1)
	assert.PanicsWithValue(t, "adaptive: New(0): size must be at least 1", func() { adaptive.New(s, 0, &adaptive.AIMD{}) })
	assert.PanicsWithValue(t, "adaptive: New: nil Algorithm", func() { adaptive.New(s, 1, nil) })
	assert.Panics(t, func() { adaptive.New(s, 1, &adaptive.AIMD{}, adaptive.WithBounds(2, 4)) })
	assert.Panics(t, func() { adaptive.WithBounds(0, 4) })
	assert.Panics(t, func() { adaptive.WithBounds(5, 4) })
	assert.Panics(t, func() { adaptive.WithSmoothing(0) })
	assert.Panics(t, func() { adaptive.WithSmoothing(1.5) })
	held := weighted.New(3)
	require.True(t, held.TryAcquire(1))
	assert.PanicsWithValue(t, "adaptive: New: 1 of 10 permits of the semaphore are held; wrap a semaphore nobody uses",
		func() { adaptive.New(held, 10, &adaptive.AIMD{}) })
	l := adaptive.New(s, 1, &adaptive.AIMD{})
	assert.PanicsWithValue(t, "adaptive: Start(-1): negative weight", func() { l.Start(context.Background(), -1) })
}

// counting is a source of random numbers that counts, so that a Limiter
// that samples one request in 2^k samples exactly every 2^k-th.
type counting struct{ n uint64 }

func (c *counting) Uint64() uint64 { c.n++; return c.n - 1 }

// TestSampling: after a window of 791 requests the Limiter measures one in
// 32 (the largest power of two that leaves at least twenty samples in as
// many requests), while every failure still counts; it tells how many
// requests a window saw from the samples, so it keeps one in 32.
func TestSampling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{next: []float64{1000, 1000, 1000, 1000}}
		l := adaptive.New(weighted.New(1), 1000, r, adaptive.WithRand(&counting{}))
		burst := func(n int, ok bool) {
			for _, tok := range started(t, l, n) {
				tok.Report(noLoad, ok)
			}
		}
		burst(10, true) // the first window needs no time: no latency is known
		burst(790, true)
		time.Sleep(2 * noLoad)
		burst(1, true) // closes the second window: 791 requests started in it
		require.Len(t, r.seen, 2)
		assert.EqualValues(t, 791, r.seen[1].Samples, "every request measured while few were seen")
		for range 2 {
			burst(800, true)
			burst(10, false)
			time.Sleep(2 * noLoad)
			burst(32, true)
		}
		require.Len(t, r.seen, 4)
		for _, w := range r.seen[2:] {
			assert.EqualValues(t, 832/32, w.Samples-w.Drops, "one success in 32")
			assert.EqualValues(t, 10, w.Drops, "every failure")
		}
	})
}

// TestSamplingDraws: by default the sampled requests are drawn at random,
// about one in 32 after a window of 791 requests.
func TestSamplingDraws(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{next: []float64{1000, 1000, 1000}}
		l := adaptive.New(weighted.New(1), 1000, r)
		burst := func(n int) {
			for _, tok := range started(t, l, n) {
				tok.Report(noLoad, true)
			}
		}
		burst(10)
		burst(790)
		time.Sleep(2 * noLoad)
		burst(1)
		require.Len(t, r.seen, 2)
		for range 4 {
			burst(800)
		}
		time.Sleep(2 * noLoad)
		for len(r.seen) < 3 { // the first sampled request closes the window
			burst(1)
		}
		// 3200 draws and a few, each sampled with chance 1/32: about 100
		// expected, with a standard deviation under 10.
		assert.InDelta(t, 100, r.seen[2].Samples, 50, "about one in 32")
	})
}
