package adaptive

import (
	"context"
	"fmt"
	"math"
)

// defaultClassShare is the share of the limit that each priority class
// leaves free for the classes above it, unless WithClassShare says
// otherwise.
const defaultClassShare = 0.1

// maxClassReserve is the most of the limit that any class leaves free,
// rounded down: a class whose share would reserve more reserves this much,
// so that a class's request of one permit is refused only while at least
// half the limit is in use, never on an idle Limiter. With a class share
// f, classes 0 to ceil(maxClassReserve/f) are distinct at most, six with
// the default share; the classes below them are refused like the last of
// those.
const maxClassReserve = 0.5

// WithClassShare sets the share of the limit, in (0, 1), that each priority
// class of [Limiter.TryStartClass] and [Limiter.StartClass] leaves free for
// the classes above it; the default is a tenth. New panics if f is outside
// (0, 1).
func WithClassShare(f float64) Option {
	if !(f > 0 && f < 1) {
		panic(fmt.Sprintf("%s: WithClassShare(%v): want 0 < f < 1", pkg, f))
	}
	return func(l *Limiter) { l.classShare = f }
}

// TryStartClass is TryStart for a request of priority class c, 0 the
// highest: it is admitted only if, beyond its own n permits, c times the
// class share of the limit (rounded up) are free, which it takes with its
// own and gives back at once. So when the limit fills, the lowest classes
// are refused first and class 0 keeps the whole limit: priorities from the
// weights that a weighted semaphore grants whole or not at all. They are
// reserves, not pre-emption: permits a lower class holds are not taken
// back, so a full limit refuses class 0's TryStartClass too, and while a
// lower class is admitted it takes permits beside the classes above it. No class
// leaves more than half the limit free (rounded down), nor so much that
// its own n permits would not fit in an idle limit: a request is refused
// for its class only while fewer than its n permits and half the limit
// are free (one permit: while at least half the limit is in use), and the
// number of distinct classes is at most 1 + 1/(2 × share), rounded up:
// six by default, fewer where a small limit rounds two classes' shares to
// the same permits. While the
// borrowed permits are held, for an instant, another request may find them
// taken. It panics if n < 0 or c < 0.
func (l *Limiter) TryStartClass(c int, n int64) (Token, bool) {
	pkg.PanicIfNegative("TryStartClass", n)
	extra := l.reserve("TryStartClass", c, n)
	if !l.s.TryAcquire(n + extra) {
		l.refuse(n)
		return Token{}, false
	}
	if extra > 0 {
		l.s.Release(extra)
	}
	return l.started(n), true
}

// StartClass is Start for a request of priority class c, 0 the highest.
// Class 0 waits as Start does; a lower class is admitted only as
// TryStartClass admits it, and refused at once with [ErrClassRefused]
// otherwise, so that it never waits ahead of a higher class. A request
// larger than the limit fails first, as in Start, with an error wrapping
// [sem.ErrExceedsSize]. It panics if n < 0 or c < 0.
func (l *Limiter) StartClass(ctx context.Context, c int, n int64) (Token, error) {
	if c == 0 {
		return l.Start(ctx, n)
	}
	pkg.PanicIfNegative("StartClass", n)
	if n > l.size.Load() {
		return Token{}, l.errExceeds("StartClass", n)
	}
	if err := ctx.Err(); err != nil {
		return Token{}, err
	}
	if t, ok := l.TryStartClass(c, n); ok {
		return t, nil
	}
	return Token{}, ErrClassRefused
}

// reserve returns the permits that a request of class c and n permits
// leaves free: its share of the limit, at most maxClassReserve of it and
// at most what n leaves of it.
func (l *Limiter) reserve(method string, c int, n int64) int64 {
	if c < 0 {
		panic(fmt.Sprintf("%s: %s: class %d: want 0 or more", pkg, method, c))
	}
	size := l.size.Load()
	share := min(float64(c)*l.classShare, maxClassReserve)
	most := int64(maxClassReserve * float64(size)) // rounded down: at an odd limit, rounding up would leave more than half free
	// Less a hair, since a decimal share times the limit lands a rounding
	// error above a whole number (3 × 0.1 × 10 comes out just above 3),
	// which would reserve a permit more than the share.
	return max(0, min(int64(math.Ceil(share*float64(size)-1e-9)), most, size-n))
}
