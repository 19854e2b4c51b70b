package adaptive

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSpreadOutlastsLuckyProbes: work within ±50% of its mean adds a
// spread of about 2 per probe of ten requests (the fastest of ten stands
// about a tenth of the range over the least), but chance makes a probe's
// fastest close to the least seen about one time in five, and then it adds
// nearly nothing. Three such probes in a row, which a run of a few dozen
// probes meets now and then, must not read the work as narrow: then the
// window's fastest is the signal again, against the least ever seen, and
// the limit sinks far below the capacity for seconds. Work that narrowed
// for good still reads as narrow after a few more.
func TestSpreadOutlastsLuckyProbes(t *testing.T) {
	var n noLoad
	fiftyPercent := 1 + 2.0/11 // a probe of ten requests whose fastest is a tenth of the range over the least
	n.learnSpread(fiftyPercent, 10)
	n.learnSpread(fiftyPercent, 10)
	require.True(t, n.wide(), "±50%% work varies widely: spread %v", n.spread)
	for range 3 {
		n.learnSpread(1, 10)
	}
	assert.True(t, n.wide(), "three lucky probes read ±50%% work as narrow: spread %v", n.spread)
	for range 2 {
		n.learnSpread(1, 10)
	}
	assert.False(t, n.wide(), "five probes whose fastest is the least seen: the work narrowed (spread %v)", n.spread)
}
