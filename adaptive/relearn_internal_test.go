package adaptive

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/weighted"
)

// TestSunkLimitRelearnsNoLoadMean: work that varies widely (bimodal, at a
// capacity of 32), whose pool of probes holds a no-load mean of 10 ms,
// and a latency step of ×1.15 that load did not cause, less than the rise
// of a quarter that the median of probes tells from chance. Gradient
// reads every window's mean of 11.5 ms against 10 ms and, where its queue
// allowance no longer grows with the limit, sinks the limit to where the
// error times the limit equals the allowance: from 36 to 20, and lower as
// probes of such work read it a few percent low; an outside simulator's
// runs kept it there for the rest of the run. Below two thirds of the 36
// the backend coped with, the next probe holds half of 36, not of the
// sunk limit, and reads what the windows at the sunk limit read: neither
// held a queue, so their mean, of many more requests than a probe's,
// becomes the no-load mean, where one more probe in the pool would move
// it by a fifth of the step.
func TestSunkLimitRelearnsNoLoadMean(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const old, stepped = 10 * time.Millisecond, 23 * time.Millisecond / 2
		l := New(weighted.New(1), 20, &Gradient{})
		l.initial, l.settled, l.coped, l.estimate = 20, 36, true, 20 // grown to 36, then sunk by the step
		n := learntWide(l, old)
		window := func(wait time.Duration, inFlight int64, samples int) {
			closeWindowOf(l, wait, inFlight, samples, stepped)
		}
		window(time.Second, 20, 40) // the windows at the sunk limit; a probe is due
		require.Equal(t, probeWindows, n.probing, "a probe started")
		assert.Equal(t, int64(18), l.Limit(), "the probe holds half the limit the backend coped with, not half the sunk one")
		window(100*time.Millisecond, 18, 10) // the draining window
		window(200*time.Millisecond, 18, 40) // the measuring window
		require.Zero(t, n.probing, "the probe ended")
		assert.InDelta(t, float64(stepped), float64(n.mean), float64(time.Millisecond/4),
			"the windows at the sunk limit read the no-load mean: %v, not %v", stepped, n.mean)
	})
}

// TestSmallSunkLimitRelearns: below a limit of 20 the allowance is a tenth
// of the limit, so a step of ×1.15 that the probes' median misses sinks a
// limit of 8 too. A limit that came down from the start of 20 to 8 and held
// there through a quiet probe is one the backend coped with; sunk to 5,
// below two thirds of it, the next probe holds half of 8 and relearns the
// no-load mean from the windows at the sunk limit.
func TestSmallSunkLimitRelearns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const old, stepped = 10 * time.Millisecond, 23 * time.Millisecond / 2
		l := New(weighted.New(1), 20, &Gradient{})
		l.estimate = 8 // came down from 20
		n := learntWide(l, old)
		window := func(wait time.Duration, inFlight int64, samples int, latency time.Duration) {
			closeWindowOf(l, wait, inFlight, samples, latency)
		}
		window(time.Second, 8, 40, old) // a probe is due, before the step
		require.Equal(t, probeWindows, n.probing, "a probe started")
		window(100*time.Millisecond, 4, 10, old)
		window(200*time.Millisecond, 4, 40, old)
		require.Zero(t, n.probing, "the probe ended")
		require.True(t, l.coped, "a limit that came down from the start and held through a quiet probe is one the backend coped with")
		l.estimate = 5 // sunk by the step
		window(time.Second, 5, 40, stepped)
		require.Equal(t, probeWindows, n.probing, "a probe started soon")
		assert.Equal(t, int64(4), l.Limit(), "the probe holds half the limit the backend coped with")
		window(100*time.Millisecond, 4, 10, stepped)
		window(200*time.Millisecond, 4, 40, stepped)
		require.Zero(t, n.probing, "the probe ended")
		// The windows before the probe still weigh one from before the step.
		assert.Greater(t, n.mean, old+(stepped-old)*3/4,
			"the windows at the sunk limit read the no-load mean: most of the way to %v, not %v", stepped, n.mean)
	})
}

// learntWide sets l's no-load state to that of work known to vary widely
// whose no-load mean, old, half a pool of probes agree on, and starts the
// probes' period now; it returns that state.
func learntWide(l *Limiter, old time.Duration) *noLoad {
	n := &l.noLoad
	n.rtt, n.spreadKnown, n.spread, n.isWide = 4*time.Millisecond, true, 2, true
	n.mean, n.counted = old, probeMedian
	for i := range poolProbes / 2 {
		p := probeMean{old, 200}
		n.pool.add(p)
		n.means[i%probeMedian] = p
	}
	n.ended = l.now()
	l.winMin.Store(0)
	return n
}

// closeWindowOf waits wait, records samples successes of two kinds of
// request of mean latency, with inFlight permits held, and closes the
// window.
func closeWindowOf(l *Limiter, wait time.Duration, inFlight int64, samples int, latency time.Duration) {
	time.Sleep(wait)
	for i := range samples {
		l.win.record(latency/2+time.Duration(i%2)*latency, true, true, inFlight)
	}
	l.closeWindow(l.now())
}
