package adaptive_test

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

// TestProbeRelearnsNoLoad: every 100 windows the Limiter halves the limit
// for two windows; the algorithm does not see the window that starts the
// probe nor the probe's, and takes the fastest
// latency of the second as the no-load latency: after the backend's latency
// doubles for good, the no-load latency doubles too at the next probe.
func TestProbeRelearnsNoLoad(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hold{}
		l := adaptive.New(weighted.New(1), 20, h)
		for range 99 {
			round(t, l, 10, noLoad, true)
		}
		require.Len(t, h.seen, 99)
		round(t, l, 10, 2*noLoad, true) // the step: from now on twice as slow
		assert.EqualValues(t, 10, l.Limit(), "the probe halves the limit")
		round(t, l, 10, 2*noLoad, true)
		assert.EqualValues(t, 10, l.Limit())
		round(t, l, 10, 2*noLoad, true)
		assert.EqualValues(t, 20, l.Limit(), "after two windows the limit comes back")
		require.Len(t, h.seen, 99, "the algorithm does not see the probe's windows")
		round(t, l, 10, 2*noLoad, true)
		assert.Equal(t, 2*noLoad, h.seen[len(h.seen)-1].NoLoadRTT, "the probe learnt the new no-load latency")
	})
}
