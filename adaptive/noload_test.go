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

// TestProbeRelearnsNoLoad: every 100 times the shortest window (here 2 s)
// the Limiter halves the limit for two windows; the algorithm does not see
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
		assert.InDelta(t, 2*time.Second, time.Since(began), float64(5*noLoad), "the probe comes after 100 windows' time")
		seen := len(h.seen)
		round(t, l, 10, 2*noLoad, true) // the step: from now on twice as slow
		assert.EqualValues(t, 10, l.Limit(), "the probe lasts two windows")
		round(t, l, 10, 2*noLoad, true)
		assert.EqualValues(t, 20, l.Limit(), "after two windows the limit comes back")
		require.Len(t, h.seen, seen, "the algorithm does not see the probe's windows")
		round(t, l, 10, 2*noLoad, true)
		assert.Equal(t, 2*noLoad, h.seen[len(h.seen)-1].NoLoadRTT, "the probe learnt the new no-load latency")
		for range 10 {
			round(t, l, 10, 2*noLoad, true)
			assert.EqualValues(t, 20, l.Limit(), "no probe follows a probe at once")
		}
	})
}
