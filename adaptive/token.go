package adaptive

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// started returns the token of a request just granted n permits, which
// reads the clock only if it is one of the sampled: one in sample+1, drawn
// at random, so that no counter is shared by every request.
func (l *Limiter) started(n int64) Token {
	if mask := l.sample.Load(); mask != 0 && l.draw()&mask != 0 {
		return Token{l: l, n: n}
	}
	return Token{l: l, n: n, sampled: true, start: l.now()}
}

// draw returns a random number.
func (l *Limiter) draw() uint64 {
	if l.rand == nil {
		return rand.Uint64()
	}
	return l.rand.Uint64()
}

// A Token is a request admitted by [Limiter.Start] or [Limiter.TryStart].
// It is a small value: copying it is free, and so is keeping it on the
// stack. End it exactly once, with Done or Report: a second call gives its
// permits back again, taking them from requests that still hold them, and
// the wrapped semaphore can tell only when more come back than are held,
// as with a second Release. The zero Token, which a refusal returns, must
// not be ended: Done and Report panic on it, with the runtime's nil
// dereference (a check of their own slowed the token path of
// BenchmarkAcquireRelease measurably).
type Token struct {
	l       *Limiter
	n       int64
	sampled bool  // the request's latency is measured
	start   int64 // l.now() when the permits were granted, if sampled or waited
	waited  int64 // the time the request waited in Start's queue
}

// Done ends the request: it reports the time since the permits were
// granted as its latency, and whether it succeeded, then gives the permits
// back. A request that failed because the backend was overloaded (a
// timeout, a rejection) must report ok false; one that failed for its own
// reasons (a bad argument, a missing record) is a success for the limit.
// Only sampled requests read the clock (see [WithRand]).
func (t Token) Done(ok bool) {
	if !t.sampled && ok {
		t.l.Release(t.n)
		return
	}
	now := t.l.now()
	t.finish(now, time.Duration(now-t.start), ok)
}

// Report is Done with a latency measured by the caller, for example the
// server's own processing time without the network. It panics if latency
// < 0.
func (t Token) Report(latency time.Duration, ok bool) {
	if latency < 0 {
		panic(fmt.Sprintf("%s: Token.Report(%v, %t): want latency >= 0", pkg, latency, ok))
	}
	if !t.sampled && ok {
		t.l.Release(t.n)
		return
	}
	t.finish(t.l.now(), latency, ok)
}

// finish records a sampled request or a failure, gives its permits back
// and closes the window if it is due.
func (t Token) finish(now int64, latency time.Duration, ok bool) {
	l := t.l
	if !ok && t.waited > now-t.start { // the queue's failure, not the backend's
		l.Release(t.n)
		return
	}
	l.win.record(latency, ok, t.sampled, l.size.Load()-l.s.Available())
	l.Release(t.n)
	if l.due(now) {
		l.closeWindow(now)
	}
}
