package outsidefifo

import (
	"context"
	"math"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
	"github.com/stretchr/testify/assert"
)

func TestHugeNAndClass(t *testing.T) {
	l := adaptive.New(weighted.New(1), 10, &adaptive.Gradient{}, adaptive.WithBounds(10, 10))
	ctx := context.Background()
	for _, n := range []int64{11, 1 << 40, math.MaxInt64 - 1, math.MaxInt64} {
		for _, c := range []int{0, 1, 5, math.MaxInt32, math.MaxInt} {
			tk, ok := l.TryStartClass(c, n)
			assert.False(t, ok, "TryStartClass(%d,%d) admitted", c, n)
			if ok {
				tk.Done(true)
			}
			_, err := l.StartClass(ctx, c, n)
			assert.ErrorIs(t, err, sem.ErrExceedsSize, "StartClass(%d,%d)", c, n)
		}
		assert.False(t, l.TryAcquire(n))
		assert.ErrorIs(t, l.Acquire(ctx, n), sem.ErrExceedsSize)
	}
	assert.EqualValues(t, 0, l.InFlight())
	// huge class at idle: admitted (no class leaves so much that its own n would not fit in an idle limit)
	for _, c := range []int{6, 100, math.MaxInt32, math.MaxInt} {
		tk, ok := l.TryStartClass(c, 1)
		assert.True(t, ok, "idle limit admits class %d", c)
		if ok {
			tk.Done(true)
		}
	}
	// at half the limit in use, class MaxInt with one permit is refused
	l.TryAcquire(5)
	_, ok := l.TryStartClass(math.MaxInt, 1)
	assert.False(t, ok)
	_, ok = l.TryStartClass(math.MaxInt, 1)
	l.Release(5)
	assert.EqualValues(t, 0, l.InFlight())
}
