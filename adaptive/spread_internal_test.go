package adaptive

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/weighted"
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

// TestWideGivesBackSunkLimit: until a probe tells that the work varies
// widely, Gradient reads each window's fastest request, which such work
// (exponential, say) puts far above the fastest ever seen by chance alone,
// and the limit sinks to a few requests within a fraction of a second. The
// no-load mean is then learnt by probes at half a few requests, whose few
// samples read it a tenth or more low or high, and one read low holds a
// limit of a few requests far below the capacity for the seconds the pool
// of probes takes: an outside simulator's exponential work at a capacity
// of 32, from a limit of 20, kept it at 5-10 for 20 s. So the probe that
// tells the work wide gives back part of the limit the sinking took, to
// the geometric mean of the sunk limit and the one the last quiet probe
// left, to an algorithm that reads the mean: at 6 and 20, 11. AIMD and
// Vegas, which read the fastest whatever the work, keep the sunk limit,
// since it would only sink again.
func TestWideGivesBackSunkLimit(t *testing.T) {
	for _, tc := range []struct {
		name string
		alg  Algorithm
		want int64
	}{
		{"Gradient", &Gradient{}, 11},
		{"Gradient reading the mean", &Gradient{Mean: true}, 6},
		{"Vegas", &Vegas{}, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New(weighted.New(1), 6, tc.alg)
			l.settled, l.estimate = 20, 6 // a quiet probe left 20; the fastest of wide work sank it to 6
			n := &l.noLoad
			n.rtt, n.spreadKnown, n.spread = time.Millisecond, true, 0.5 // read as narrow so far
			n.probing, n.before = 1, 10*time.Millisecond                 // the probe's measuring window closes next
			l.winMin.Store(0)
			for i := range 10 { // no queue, and the fastest 3 times the least seen: wide
				l.win.record(time.Duration(3+i*3)*time.Millisecond, true, true, 3)
			}
			l.closeWindow(int64(time.Second))
			require.True(t, n.wide(), "the probe tells the work wide: spread %v", n.spread)
			assert.Equal(t, tc.want, l.Limit())
		})
	}
}
