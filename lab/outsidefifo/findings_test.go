package outsidefifo

// Minimal reproductions of the promises this snapshot breaks (each fails).

import (
	"testing"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
	"github.com/stretchr/testify/assert"
)

// Refused's doc: "Requests ... larger than the limit, are not counted."
func TestBroken_RefusedCountsOversizeTryStart(t *testing.T) {
	l := adaptive.New(weighted.New(1), 4, &adaptive.Gradient{}, adaptive.WithBounds(4, 4))
	l.TryStart(5)
	assert.EqualValues(t, 0, l.Refused(), "TryStart(5) at limit 4")
	l.TryStartClass(2, 5)
	assert.EqualValues(t, 0, l.Refused(), "TryStartClass(2,5) at limit 4")
}

// TryStartClass's doc: admitted if, beyond its n, c times the class share of
// the limit (rounded up) are free. 3 × 0.1 × 10 = 3, so 1+3 free suffice.
func TestBroken_ClassShareFloatRounding(t *testing.T) {
	for _, L := range []int64{10, 20} {
		l := adaptive.New(weighted.New(1), L, &adaptive.Gradient{}, adaptive.WithBounds(L, L))
		extra := 3 * L / 10
		l.TryAcquire(L - 1 - extra) // exactly 1+extra free
		_, ok := l.TryStartClass(3, 1)
		c, share := 3.0, 0.1
		assert.True(t, ok, "L=%d: class 3 with %d free refused (float64 c*share*L = %v)", L, 1+extra, c*share*float64(L))
	}
}
