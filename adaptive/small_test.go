package adaptive_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/semacat/sem/adaptive"
)

// TestSmallLimits: at a capacity of 2, a limit of 3 keeps one request
// queued, which the fastest request of a window reads as about 0.6 of a
// request (it runs part of its time beside fewer), and a limit of 4 as more
// than one. Each algorithm must hold 3 there, or come back to it by half a
// request at a time, and move by less than a request per window, so that
// it neither climbs over nor backs off under the capacity on noise.
func TestSmallLimits(t *testing.T) {
	a := &adaptive.AIMD{}
	assert.InDelta(t, 2.15, a.Next(ms(2, 2, 125*noLoad/100, 0)), 1e-9,
		"AIMD: 1.25× at a limit of 2 is less than 0.6 of a request of queue; it grows by 0.075 of the limit")
	assert.Equal(t, 2.5, a.Next(ms(3, 3, 125*noLoad/100, 0)), "AIMD: 0.75 of a request of queue at 3: the backoff takes off half a request")
	assert.Equal(t, 21.0, a.Next(ms(20, 20, noLoad, 0)), "AIMD: Increase caps the growth")

	v := &adaptive.Vegas{}
	assert.Equal(t, 3.0, v.Next(ms(3, 3, 125*noLoad/100, 0)), "Vegas: 0.6 of a request of queue is within beta")
	assert.InDelta(t, 4-(4.0/3-0.75), v.Next(ms(4, 4, 15*noLoad/10, 0)), 1e-9, "Vegas: a queue of 4/3 requests is above beta")

	g := &adaptive.Gradient{}
	assert.InDelta(t, 2.1, g.Next(latencies(2, noLoad, noLoad)), 1e-9,
		"Gradient: the queue allowed is a tenth of the limit, at least half a request, smoothed by a fifth")
	g = &adaptive.Gradient{}
	assert.InDelta(t, 20.4, g.Next(latencies(20, noLoad, noLoad)), 1e-9, "Gradient: a tenth of 20 is QueueSize")
}

// TestGradientHeadroom: under sustained overload the window's latency stays
// twice the no-load latency; Gradient's average may not follow it above
// 1.02 times the no-load latency, so the limit keeps shrinking instead of
// climbing back as the average catches up.
func TestGradientHeadroom(t *testing.T) {
	g := &adaptive.Gradient{Smoothing: 1}
	limit := 100.0
	for range 2000 {
		limit = max(g.Next(latencies(100, 2*noLoad, 2*noLoad)), 1)
	}
	assert.InDelta(t, 100*0.51+2, limit, 1e-9, "the gradient stays 1.02/2")
}

// TestGradientBandAtEight: a limit of 9.5 over a capacity of 8 makes the
// fastest request 9.5/8 of the no-load latency in a processor-sharing
// backend; Gradient must shrink it, or the jitter of arrivals carries it
// out of ±25% of the capacity: the headroom times the capacity plus the
// queue allowance must stay under 9.5.
func TestGradientBandAtEight(t *testing.T) {
	g := &adaptive.Gradient{}
	var limit float64
	for range 50 {
		limit = g.Next(latencies(9.5, 95*noLoad/80, 95*noLoad/80))
	}
	assert.Less(t, limit, 9.5)
}

// TestAppLimitedHolds: a limit whose peak use stayed more than a tenth
// below it, as at 0.6 of the capacity between bursts, is not grown by any
// algorithm, however fast the requests; one used to within a tenth is.
func TestAppLimitedHolds(t *testing.T) {
	for _, alg := range []adaptive.Algorithm{&adaptive.AIMD{}, &adaptive.Vegas{}, &adaptive.Gradient{}} {
		assert.Equal(t, 55.0, alg.Next(ms(55, 40, noLoad, 0)), "%T: 40 of 55 in use at most", alg)
		assert.Greater(t, alg.Next(ms(55, 50, noLoad, 0)), 55.0, "%T: 50 of 55 in use", alg)
		assert.Equal(t, 3.0, alg.Next(ms(3, 1, noLoad, 0)), "%T: 1 of 3 in use at most", alg)
	}
}

// TestGradientFailFast: a backend that fails at once when full answers
// quickly, so the latency says nothing; a window in which more than a
// tenth of the sampled requests failed must shrink Gradient's limit, and
// one with a few failures must not.
func TestGradientFailFast(t *testing.T) {
	g := &adaptive.Gradient{}
	w := latencies(96, noLoad, noLoad)
	w.Drops, w.DropRate = 10, 0.5
	assert.InDelta(t, 96*0.9, g.Next(w), 1e-9, "half the sampled requests failed")
	w.DropRate = 0.05
	assert.Greater(t, g.Next(w), 96.0, "a twentieth failed: the latency rules")
}

// mean is a window of a limit in which the work varies widely: its mean
// latency against the no-load mean noLoad.
func mean(limit float64, m time.Duration) adaptive.Window {
	return adaptive.Window{Limit: limit, InFlight: int64(math.Round(limit)), Samples: 20,
		MinRTT: noLoad / 2, MeanRTT: m, NoLoadRTT: noLoad / 2, NoLoadMeanRTT: noLoad}
}

// TestGradientHoldsSmallSize: where the work varies widely and the limit
// is a few requests, Gradient reads the window's mean against the probes'
// no-load mean, and at a capacity of 2 a size of 3 reads 1.3 times it
// (some 0.65 of a request queued, close to the allowance of 0.75), a size
// of 4 more than 1.6 times. Left to the gradient alone, the limit settles
// where the queue read equals the allowance, which a no-load mean read a
// few percent high puts past 3.5, a size of 4, where the p99 goal breaks.
// A queue read within 0.35 of a request of the allowance holds the size
// instead: the limit moves towards the size it rounds to, from above and
// from below, and a queue outside the band moves it as before.
func TestGradientHoldsSmallSize(t *testing.T) {
	g := &adaptive.Gradient{}
	assert.InDelta(t, 3.32, g.Next(mean(3.4, 13*noLoad/10)), 1e-9, "a size of 3 that reads 0.65 queued: 0.2 of the way to 3")
	g = &adaptive.Gradient{}
	assert.InDelta(t, 2.68, g.Next(mean(2.6, 13*noLoad/10)), 1e-9, "from below as well")
	g = &adaptive.Gradient{}
	assert.InDelta(t, 3.6+0.2*(3.6*1.02/1.65+0.75-3.6), g.Next(mean(3.6, 165*noLoad/100)), 1e-9,
		"a size of 4 that reads 1.5 queued shrinks as the gradient says")
	g = &adaptive.Gradient{}
	assert.InDelta(t, 2.2+0.2*0.75, g.Next(mean(2.2, noLoad)), 1e-9, "a size of 2 that reads no queue grows by the allowance")
}
