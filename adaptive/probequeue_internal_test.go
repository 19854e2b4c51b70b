package adaptive

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/weighted"
)

// wideLimiter returns a Gradient Limiter of limit whose probes have told
// that the work varies widely and whose no-load mean is mean, learnt from
// counted probes (pooled, if poolProbes/2 or more), and the window of
// samples it calls: after wait, samples successes of two kinds of
// request, whose mean is m, at inFlight requests in use.
func wideLimiter(t *testing.T, limit int64, mean time.Duration, counted int) (*Limiter, func(wait, m time.Duration, inFlight int64, samples int)) {
	l := New(weighted.New(1), limit, &Gradient{})
	n := &l.noLoad
	n.rtt, n.spreadKnown, n.spread, n.isWide = time.Millisecond, true, 2, true
	n.mean, n.counted = mean, min(counted, probeMedian)
	for i := range counted {
		p := probeMean{mean, 100}
		n.means[i%probeMedian] = p
		n.pool.add(p)
	}
	time.Sleep(time.Millisecond) // the period of probes starts now, not at 0, which means unset
	n.ended = l.now()
	l.winMin.Store(0)
	return l, func(wait, m time.Duration, inFlight int64, samples int) {
		t.Helper()
		time.Sleep(wait)
		for i := range samples {
			l.win.record(m/2+time.Duration(i%2)*m, true, true, inFlight)
		}
		l.closeWindow(l.now())
	}
}

// TestProbeFallSinceQueue: exponential work at a capacity of 2, from a
// limit of 20, with clients that wait 500 ms. A probe from 4.5 found a
// queue and the limit fell to 2, where the backend holds none; the
// windows' mean before the next probe still weighs those at 4.5 (24 ms),
// and the probe from 2 to 1 reads 8.1 ms, under 0.6 of that mean but
// nearly what the window at 2 read (9.4 ms). The fall is the old windows',
// not a queue's: the limit stays at 2, where it fell to 1, half the
// capacity, for seconds (the outside simulator's seeds 5 and 8).
func TestProbeFallSinceQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, window := wideLimiter(t, 2, 10*time.Millisecond, poolProbes/2)
		n := &l.noLoad
		n.recent = decayed{latency: float64(24*time.Millisecond) * 180, successes: 180, ends: 180} // the windows at 4.5, before the probe that found a queue
		window(time.Second, 9400*time.Microsecond, 2, 88)                                          // the window at 2; a probe is due
		require.Equal(t, probeWindows, n.probing, "a probe started")
		require.Less(t, 8100*time.Microsecond, time.Duration(probeQueued*float64(n.before)), "the windows' mean, smoothed over the old ones, reads a fall")
		assert.Equal(t, int64(1), l.Limit(), "the probe holds half the limit")
		window(100*time.Millisecond, 8100*time.Microsecond, 1, 10)  // the draining window
		window(200*time.Millisecond, 8100*time.Microsecond, 1, 100) // the measuring window
		require.Zero(t, n.probing, "the probe ended")
		assert.False(t, n.queued, "the window at 2 read no queue, nor did the probe")
		assert.Equal(t, int64(2), l.Limit(), "the limit stays at the capacity")
	})
}

// TestSankProbeWithoutStep: the same work and clients, the limit started
// at 20. The first probes, far over the capacity, read means of 75.7 and
// 41.1 ms (the median, 41.1, is the no-load mean); the windows' mean
// against it sank the limit from 21 to 9.8, below half of 21, as a latency
// step would, so the next probe holds half of 21, 10: no lower than the
// sunk limit. It reads 47.9 ms, no fall from the windows' 62.8 ms and no
// rise of a step over 41.1 ms: it says nothing of the no-load mean, which
// would otherwise become the median, 47.9 ms, and hold the limit near 10
// for the next sixteen seconds (the outside simulator's seed 2: p99 4.9
// times the unloaded). The next probe, from the limit in force, follows
// after one probe's length, not three, and holds half of it.
func TestSankProbeWithoutStep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const noLoadMean = 41100 * time.Microsecond
		l, window := wideLimiter(t, 10, noLoadMean, 0)
		l.initial, l.settled, l.estimate = 20, 21, 9.84
		n := &l.noLoad
		n.means[0], n.means[1], n.counted = probeMean{75700 * time.Microsecond, 10}, probeMean{noLoadMean, 69}, 2
		n.soon, n.length = true, 600*time.Millisecond.Nanoseconds()
		window(2*time.Second, 62800*time.Microsecond, 10, 80) // a probe is due
		require.Equal(t, probeWindows, n.probing, "a probe started")
		assert.Equal(t, int64(10), l.Limit(), "the probe holds half the limit before the sinking")
		window(300*time.Millisecond, 62800*time.Microsecond, 10, 10) // the draining window
		window(300*time.Millisecond, 47900*time.Microsecond, 10, 90) // the measuring window
		require.Zero(t, n.probing, "the probe ended")
		require.False(t, n.queued, "the probe read no fall")
		assert.Equal(t, noLoadMean, n.mean, "a probe no lower than the sunk limit that saw no step says nothing of the no-load mean")
		window(time.Duration(n.length)+time.Millisecond, 62800*time.Microsecond, 10, 80)
		require.Equal(t, probeWindows, n.probing, "the next probe follows after one probe's length")
		assert.Equal(t, int64(5), l.Limit(), "and holds half the limit in force")
	})
}

// TestProbeFailuresSinceQueue: the same work at 2 with clients that wait
// 50 ms. A probe from 4.5 found a queue and the limit fell to 2; a
// seventh of the requests at 4.5 outlasted their clients, none of those
// at 2 did, and the probe from 2 to 1 fails a fiftieth: fewer than half
// the share of the windows' before it, smoothed over the old ones, but
// not of those since the queue, where none failed. The limit stays at 2.
func TestProbeFailuresSinceQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, window := wideLimiter(t, 2, 10*time.Millisecond, poolProbes/2)
		n := &l.noLoad
		n.recent = decayed{latency: float64(10*time.Millisecond) * 180, successes: 180, ends: 210, failed: 30} // the windows at 4.5
		window(time.Second, 11*time.Millisecond, 2, 88)                                                        // the window at 2; a probe is due
		require.Equal(t, probeWindows, n.probing, "a probe started")
		require.Greater(t, n.beforeFail, 2*0.02, "the windows' share of failures, smoothed over the old ones, reads a fall")
		window(100*time.Millisecond, 10*time.Millisecond, 1, 10) // the draining window
		l.win.record(50*time.Millisecond, false, true, 1)
		l.win.record(50*time.Millisecond, false, true, 1)
		window(200*time.Millisecond, 10*time.Millisecond, 1, 98) // the measuring window
		require.Zero(t, n.probing, "the probe ended")
		assert.False(t, n.queued, "no request at 2 failed, so the probe's few failures tell no queue")
		assert.Equal(t, int64(2), l.Limit(), "the limit stays at the capacity")
	})
}
