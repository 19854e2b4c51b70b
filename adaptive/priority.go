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
// weights that a weighted semaphore grants whole or not at all. While the
// borrowed permits are held, for an instant, another request may find them
// taken. It panics if n < 0 or c < 0.
func (l *Limiter) TryStartClass(c int, n int64) (Token, bool) {
	pkg.PanicIfNegative("TryStartClass", n)
	extra := l.reserve("TryStartClass", c)
	if !l.s.TryAcquire(n + extra) {
		l.refused.Add(1)
		return Token{}, false
	}
	if extra > 0 {
		l.s.Release(extra)
	}
	return l.started(n), true
}

// StartClass is Start for a request of priority class c, 0 the highest.
// Class 0 waits as Start does; a lower class is admitted only as
// TryStartClass admits it, and refused at once with [ErrLimitExceeded]
// otherwise, so that it never waits ahead of a higher class. It panics if
// n < 0 or c < 0.
func (l *Limiter) StartClass(ctx context.Context, c int, n int64) (Token, error) {
	if c == 0 {
		return l.Start(ctx, n)
	}
	pkg.PanicIfNegative("StartClass", n)
	if err := ctx.Err(); err != nil {
		return Token{}, err
	}
	if t, ok := l.TryStartClass(c, n); ok {
		return t, nil
	}
	return Token{}, ErrLimitExceeded
}

// reserve returns the permits that a request of class c leaves free.
func (l *Limiter) reserve(method string, c int) int64 {
	if c < 0 {
		panic(fmt.Sprintf("%s: %s: class %d: want 0 or more", pkg, method, c))
	}
	return int64(math.Ceil(float64(c) * l.classShare * float64(l.size.Load())))
}
