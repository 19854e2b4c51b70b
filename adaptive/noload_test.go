package adaptive_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

// TestProbeRelearnsNoLoad: every 100 times the shortest window (here 2 s),
// the first time after 10, the Limiter halves the limit for two windows; the algorithm does not see
// the window that starts the probe nor the probe's, and takes the fastest
// latency of the second as the no-load latency: after the backend's latency
// doubles for good, the no-load latency doubles too at the next probe.
func TestProbeRelearnsNoLoad(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hold{}
		l := adaptive.New(weighted.New(1), 20, h)
		began := time.Now()
		for l.Limit() == 20 {
			round(t, l, 10, noLoad, true)
			require.Less(t, time.Since(began), 3*time.Second, "no probe")
		}
		assert.InDelta(t, 200*time.Millisecond, time.Since(began), float64(5*noLoad),
			"the first probe comes after 10 windows' time: it tells how widely the work's time varies")
		round(t, l, 10, noLoad, true)
		round(t, l, 10, noLoad, true)
		require.EqualValues(t, 20, l.Limit(), "the first probe lasts two windows")
		began = time.Now()
		for l.Limit() == 20 {
			round(t, l, 10, noLoad, true)
			require.Less(t, time.Since(began), 3*time.Second, "no probe")
		}
		assert.InDelta(t, 2*time.Second, time.Since(began), float64(5*noLoad), "the next probe comes after 100 windows' time")
		seen := len(h.seen)
		round(t, l, 10, 2*noLoad, true) // the step: from now on twice as slow
		assert.EqualValues(t, 10, l.Limit(), "the probe lasts two windows")
		round(t, l, 10, 2*noLoad, true)
		assert.EqualValues(t, 20, l.Limit(), "after two windows the limit comes back")
		require.Len(t, h.seen, seen, "the algorithm does not see the probe's windows")
		round(t, l, 10, 2*noLoad, true)
		assert.Equal(t, 2*noLoad, h.seen[len(h.seen)-1].NoLoadRTT, "the probe learnt the new no-load latency")
		assert.Zero(t, h.seen[len(h.seen)-1].NoLoadMeanRTT, "a latency step is not read as work that varies widely")
		for range 10 {
			round(t, l, 10, 2*noLoad, true)
			assert.EqualValues(t, 20, l.Limit(), "no probe follows a probe at once")
		}
	})
}

// propose proposes the same limit at every window.
type propose float64

func (p propose) Next(adaptive.Window) float64 { return float64(p) }

// TestProbeKeepsHalfRoundedUp: the probe holds half the limit rounded up,
// so that at a limit of 2.6 (a semaphore of 3, one over a capacity of 2) it
// runs at 2, which holds no queue, and not at 1, which would leave half the
// capacity idle for the probe's two windows, long ones at so few requests.
func TestProbeKeepsHalfRoundedUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := adaptive.New(weighted.New(1), 3, propose(2.6))
		began := time.Now()
		for l.Limit() == 3 {
			round(t, l, 3, noLoad, true)
			require.Less(t, time.Since(began), 3*time.Second, "no probe")
		}
		assert.EqualValues(t, 2, l.Limit(), "half of 2.6, rounded up")
		for l.Limit() == 2 {
			round(t, l, 2, noLoad, true)
		}
		assert.EqualValues(t, 3, l.Limit(), "the limit comes back after the probe")
	})
}
