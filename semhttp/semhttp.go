// Package semhttp limits the requests a net/http handler serves at once with
// any [sem.Semaphore]: a request is served while it holds permits, and one
// that cannot have them is refused with 503 Service Unavailable and a
// Retry-After header, at once or after waiting a bounded time.
//
//	s := weighted.New(64) // at most 64 requests served at once
//	http.Handle("/search", semhttp.Limit(search, s, semhttp.MaxWait(100*time.Millisecond)))
//
// Refusing at once (the default) sheds load the moment the server is full,
// so that clients retry elsewhere or later; waiting a little absorbs short
// bursts at the price of that much latency. Waiting is bounded by MaxWait
// and by the request's own context, so a client that goes away stops
// waiting.
//
// With an [adaptive.Limiter], the limit learns from the responses: each
// request is started with Start or TryStart and ends with Token.Done,
// which is told the request succeeded when the handler's status is below
// 500 and failed otherwise. A panic in the handler is a failure, except
// http.ErrAbortHandler, with which a handler (httputil.ReverseProxy among
// them) abandons a response whose client went away; a connection the
// handler hijacks is a success, since what it then writes is unknown. To
// know the status, the handler then gets a ResponseWriter that records it;
// that writer implements http.Flusher (and FlushError), http.Hijacker and
// io.ReaderFrom by passing each on to the server's own (which answers
// http.ErrNotSupported for a feature it lacks), and unwraps, for
// http.ResponseController, to it. With any other semaphore
// the handler gets the server's ResponseWriter itself.
//
// A request whose client has gone away before it is served is not served,
// whatever MaxWait says.
package semhttp

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/adaptive"
)

// An Option adjusts the handler made by [Limit].
type Option func(*limited)

// MaxWait lets a request wait up to d for its permits before it is refused.
// The default, 0, refuses it at once when the permits are not free. MaxWait
// panics if d is negative.
func MaxWait(d time.Duration) Option {
	if d < 0 {
		panic(fmt.Sprintf("semhttp: MaxWait(%v): negative duration", d))
	}
	return func(l *limited) { l.maxWait = d }
}

// RetryAfter sets the Retry-After header of a refusal: d rounded up to whole
// seconds, the unit of the header. The default is one second. RetryAfter
// panics if d is not positive.
func RetryAfter(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("semhttp: RetryAfter(%v): want a positive duration", d))
	}
	return func(l *limited) { l.retryAfter = strconv.Itoa(int(math.Ceil(d.Seconds()))) }
}

// Weight sets how many permits a request takes, as f says; the default is
// one per request. A request heavier than the semaphore's size is refused.
// f must not return a negative number (the semaphore panics on one).
func Weight(f func(*http.Request) int64) Option {
	return func(l *limited) { l.weight = f }
}

// Limit returns a handler that serves a request with h while it holds
// permits of s, and refuses it with 503 Service Unavailable and a
// Retry-After header if it cannot have them: at once by default, or after
// waiting as long as [MaxWait] allows. The permits are given back when h
// returns, also if it panics.
//
// If s is an [*adaptive.Limiter], every request served reports to it
// whether it succeeded, a status below 500, as the package documentation
// describes. Limit panics if h or s is nil.
func Limit(h http.Handler, s sem.Semaphore, opts ...Option) http.Handler {
	if h == nil || s == nil {
		panic(fmt.Sprintf("semhttp: Limit(%T, %T): want a handler and a semaphore, not nil", h, s))
	}
	l := &limited{h: h, s: s, retryAfter: "1"}
	l.learner, _ = s.(*adaptive.Limiter)
	for _, o := range opts {
		o(l)
	}
	return l
}

// limited is the handler Limit returns.
type limited struct {
	h          http.Handler
	s          sem.Semaphore
	learner    *adaptive.Limiter // s, if it learns from outcomes
	maxWait    time.Duration
	retryAfter string
	weight     func(*http.Request) int64
}

func (l *limited) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int64(1)
	if l.weight != nil {
		n = l.weight(r)
	}
	if l.learner != nil {
		l.serveLearning(w, r, n)
		return
	}
	if !l.acquire(r, n) {
		l.refuse(w)
		return
	}
	defer l.s.Release(n)
	l.h.ServeHTTP(w, r)
}

// acquire takes n permits for r, waiting no longer than MaxWait.
func (l *limited) acquire(r *http.Request, n int64) bool {
	if r.Context().Err() != nil { // the client is gone: as Acquire does, take nothing
		return false
	}
	if l.maxWait == 0 {
		return l.s.TryAcquire(n)
	}
	ctx, cancel := context.WithTimeout(r.Context(), l.maxWait)
	defer cancel()
	return l.s.Acquire(ctx, n) == nil
}

// serveLearning serves r under the adaptive limiter, and tells it whether
// the response was a success.
func (l *limited) serveLearning(w http.ResponseWriter, r *http.Request, n int64) {
	tok, ok := l.start(r, n)
	if !ok {
		l.refuse(w)
		return
	}
	rec := &statusRecorder{ResponseWriter: w}
	defer func() {
		if v := recover(); v != nil {
			// http.ErrAbortHandler ends a response on purpose, most often
			// because the client went away (httputil.ReverseProxy panics
			// with it then): it says nothing of the backend's load. Any
			// other panic is a failure.
			tok.Done(v == http.ErrAbortHandler)
			panic(v)
		}
		tok.Done(rec.succeeded())
	}()
	l.h.ServeHTTP(rec, r)
}

// start is acquire for the adaptive limiter.
func (l *limited) start(r *http.Request, n int64) (adaptive.Token, bool) {
	if r.Context().Err() != nil {
		return adaptive.Token{}, false
	}
	if l.maxWait == 0 {
		return l.learner.TryStart(n)
	}
	ctx, cancel := context.WithTimeout(r.Context(), l.maxWait)
	defer cancel()
	tok, err := l.learner.Start(ctx, n)
	return tok, err == nil
}

// refuse answers a request that could not have its permits.
func (l *limited) refuse(w http.ResponseWriter) {
	w.Header().Set("Retry-After", l.retryAfter)
	http.Error(w, "503 Service Unavailable: the server is serving as many requests as it can; retry later", http.StatusServiceUnavailable)
}
