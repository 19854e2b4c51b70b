package adaptive

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The refusals of [Limiter.Start]; test for them with errors.Is.
var (
	// ErrLimitExceeded is returned by Start when the limit is reached and
	// the permits queued ahead and the request's own say the wait would be
	// longer than the longest wait allowed, or than the context's deadline
	// leaves for the request itself: the request is shed before it waits.
	// Shed it further up, or allow a longer wait with WithMaxWait.
	ErrLimitExceeded = errors.New("adaptive: limit reached and the queue ahead would outlast the longest wait allowed; shed the request or raise WithMaxWait")
	// ErrQueueTimeout is returned by Start when the request waited the
	// longest wait allowed, or all its deadline left for the request
	// itself, and no permit came back. Shed it further up, or allow a
	// longer wait with WithMaxWait.
	ErrQueueTimeout = errors.New("adaptive: waited the longest wait allowed for a permit; shed the request or raise WithMaxWait")
	// ErrClassRefused is returned by StartClass for a class other than 0
	// when the permits free, less those the class leaves to the classes
	// above it (at most half the limit), do not hold the request. It wraps
	// ErrLimitExceeded. Shed the request, or give it a higher class.
	ErrClassRefused = fmt.Errorf("adaptive: too little of the limit free for the request's priority class, which leaves part of it to higher classes; shed the request or raise its class: %w", ErrLimitExceeded)
)

// defaultWaitDivisor makes the longest wait in Start, unless WithMaxWait
// sets it, the no-load latency over this.
const defaultWaitDivisor = 4

// WithMaxWait bounds the wait in [Limiter.Start] at d; 0 makes Start refuse
// at once when the limit is reached, as TryStart does. The default is a
// quarter of the no-load latency, so that a request's wait and its latency
// together stay near its latency on a backend that copes: the no-load
// latency the Limiter knows when the request begins to wait, which it also
// learns from probe windows its Algorithm never sees, so a quarter of
// [Window.NoLoadRTT] may differ from it a little. Until the Limiter has
// seen a latency, Start then waits as Acquire does; a d set here bounds the
// wait from the first request on. New panics if d < 0.
func WithMaxWait(d time.Duration) Option {
	if d < 0 {
		panic(fmt.Sprintf("%s: WithMaxWait(%v): want d >= 0", pkg, d))
	}
	return func(l *Limiter) { l.maxWait = d }
}

// wait queues a request of n permits that did not fit at once, if the wait
// pays, and returns its token once the permits are granted.
func (l *Limiter) wait(ctx context.Context, n int64) (Token, error) {
	began := l.now()
	ahead := l.queued.Add(n)
	defer l.queued.Add(-n)
	wctx := ctx
	if budget := l.budget.Load(); budget >= 0 {
		if deadline, ok := ctx.Deadline(); ok { // leave the request its own time
			budget = min(budget, int64(time.Until(deadline))-l.meanRTT.Load())
		}
		if budget <= 0 || l.expectedWait(ahead) > budget {
			l.refuse(n)
			return Token{}, ErrLimitExceeded
		}
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, time.Duration(budget))
		defer cancel()
	}
	if err := l.s.Acquire(wctx, n); err != nil {
		if ctx.Err() == nil && wctx.Err() != nil {
			l.refuse(n)
			return Token{}, ErrQueueTimeout
		}
		return Token{}, err
	}
	t := l.started(n)
	t.start = l.now()
	t.waited = t.start - began
	return t, nil
}

// expectedWait estimates, in nanoseconds, how long a request with ahead
// permits asked for before it and its own waits: by Little's law, the
// permits of a limit L held for a mean latency r come back at L/r a second.
func (l *Limiter) expectedWait(ahead int64) int64 {
	return ahead * l.meanRTT.Load() / max(1, l.size.Load())
}
