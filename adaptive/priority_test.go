package adaptive_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

// TestClasses: at a limit of 10, a request of class c must find c more
// permits free than it takes, so as the limit fills the lowest class is
// refused first and class 0 keeps the whole limit.
func TestClasses(t *testing.T) {
	synctest.Test(t, testClasses)
}

func testClasses(t *testing.T) {
	l := adaptive.New(weighted.New(1), 10, &adaptive.Gradient{})
	toks := started(t, l, 7) // 3 free
	_, ok := l.TryStartClass(3, 1)
	assert.False(t, ok, "class 3 needs 4 free")
	_, err := l.StartClass(context.Background(), 3, 1)
	assert.ErrorIs(t, err, adaptive.ErrClassRefused, "a lower class does not wait")
	assert.ErrorIs(t, err, adaptive.ErrLimitExceeded, "a class refusal is a full limit too")
	tok, ok := l.TryStartClass(2, 1)
	require.True(t, ok, "class 2 needs 3 free")
	assert.EqualValues(t, 8, l.InFlight(), "the class's extra permits came back")
	toks = append(toks, tok)
	_, ok = l.TryStartClass(2, 1)
	assert.False(t, ok, "2 free: class 2 is refused")
	for range 2 {
		tok, err := l.StartClass(context.Background(), 0, 1)
		require.NoError(t, err, "class 0 takes the last permits")
		toks = append(toks, tok)
	}
	assert.EqualValues(t, 3, l.Refused())
	for _, tok := range toks {
		tok.Done(true)
	}
	assert.Panics(t, func() { l.TryStartClass(-1, 1) })
	assert.Panics(t, func() { adaptive.WithClassShare(1) })
}

// TestClassesIdle: no class leaves more than half the limit free, nor more
// than its own request leaves of it, so an idle Limiter admits every class,
// at every limit, and the lowest classes are refused only once half the
// limit is in use. It runs in a synctest bubble, whose clock stands still:
// on a loaded machine a real clock closed a window mid-loop and the limit
// moved under the test.
func TestClassesIdle(t *testing.T) {
	synctest.Test(t, testClassesIdle)
}

func testClassesIdle(t *testing.T) {
	for _, limit := range []int64{1, 2, 5, 10, 40} {
		l := adaptive.New(weighted.New(1), limit, &adaptive.Gradient{})
		for c := range 30 {
			tok, ok := l.TryStartClass(c, 1)
			require.True(t, ok, "idle limit %d: class %d refused", limit, c)
			tok.Done(true)
			tok, err := l.StartClass(context.Background(), c, limit)
			require.NoError(t, err, "idle limit %d: class %d of the whole limit refused", limit, c)
			tok.Done(true)
		}
		assert.Zero(t, l.Refused())
	}
	l := adaptive.New(weighted.New(1), 10, &adaptive.Gradient{})
	toks := started(t, l, 4)
	tok, ok := l.TryStartClass(29, 1)
	require.True(t, ok, "4 of 10 in use: the lowest class still fits beside half the limit")
	_, err := l.StartClass(context.Background(), 29, 1)
	assert.ErrorIs(t, err, adaptive.ErrClassRefused, "half the limit in use: the lowest class is refused")
	for _, tok := range append(toks, tok) {
		tok.Done(true)
	}
}

// TestClassesHalf: at every limit and class share, the lowest class's
// request of one permit is refused exactly while at least half the limit
// is in use, odd limits included. Its clock stands still, as
// TestClassesIdle's does.
func TestClassesHalf(t *testing.T) {
	synctest.Test(t, testClassesHalf)
}

func testClassesHalf(t *testing.T) {
	for _, share := range []float64{0.1, 0.15, 0.25, 0.3, 0.5, 0.9} {
		for limit := int64(1); limit <= 41; limit++ {
			l := adaptive.New(weighted.New(1), limit, &adaptive.Gradient{}, adaptive.WithClassShare(share))
			var toks []adaptive.Token
			for inUse := range limit {
				tok, ok := l.TryStartClass(29, 1)
				require.Equal(t, 2*inUse < limit, ok, "share %v, limit %d, %d in use", share, limit, inUse)
				if ok {
					tok.Done(true)
				}
				toks = append(toks, started(t, l, 1)...)
			}
			for _, tok := range toks {
				tok.Done(true)
			}
		}
	}
}

// TestClassesShareRounding: a class reserves c times the share of the
// limit rounded up, not a permit more where the product of a decimal share
// lands a rounding error above a whole number (3 × 0.1 × 10). Its clock
// stands still, as TestClassesIdle's does.
func TestClassesShareRounding(t *testing.T) {
	synctest.Test(t, testClassesShareRounding)
}

func testClassesShareRounding(t *testing.T) {
	for limit := int64(10); limit <= 100; limit += 10 {
		l := adaptive.New(weighted.New(1), limit, &adaptive.Gradient{})
		toks := started(t, l, int(limit-limit*3/10-1)) // 3 tenths of the limit and one permit free
		tok, ok := l.TryStartClass(3, 1)
		require.True(t, ok, "limit %d: class 3 leaves 3 tenths free, and the request's permit fits beside them", limit)
		tok.Done(true)
		for _, tok := range toks {
			tok.Done(true)
		}
	}
}
