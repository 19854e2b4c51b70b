// Package semexpvar exports what a semaphore knows about itself to expvar,
// and so to anything that reads /debug/vars, with no metrics library:
//
//	s := weighted.New(64)
//	semexpvar.Publish("db_connections", s)
//
// The published variable is a JSON object read afresh at every read of
// /debug/vars, with a member for each number the semaphore reports, found
// by the methods it has:
//
//	size                 Size()                 the number of permits
//	available            Available()            the free permits (negative after a shrink below those held)
//	limit                Limit()                an adaptive.Limiter's current limit
//	in_flight            InFlight()             the requests it holds now
//	queued               Queued()               the requests waiting in its queue now
//	refused              Refused()              the requests it has refused so far
//	waiting_requests     Waiting()              Acquire calls waiting now (sem.Observer)
//	waiting_permits      Waiting()              the permits they ask for
//	waits                OnWait                 Acquire calls that had to wait, since Publish
//	waits_failed         OnWait                 those of them that ended without their permits
//	wait_seconds_sum     OnWait                 the time they waited in total
//	wait_seconds_bucket  OnWait                 how many waited at most each bound, in seconds, as a map
//	                                            from the bound to the count ("+Inf" counts them all)
//
// The histogram's bounds are decades from a microsecond to ten seconds, and
// its counts are cumulative, as Prometheus's are, so that a bridge can pass
// them on as they are.
//
// Nothing here costs anything until Publish or Var is called. The wait
// figures come from the function Var installs with sem.Observer.OnWait,
// which a few atomic additions per wait cost, without allocation; Var
// replaces any function installed before it, and a later OnWait call
// stops them. Numbers a semaphore reports through other methods can join
// with [Gauge].
package semexpvar

import (
	"expvar"
	"fmt"

	"github.com/semacat/sem"
)

// An Option adds to what [Var] and [Publish] export.
type Option func(*exporter)

// Gauge exports, under name, the number f returns at every read: the
// numbers of a limiter or a pool that semexpvar does not know. f must be
// safe for concurrent use. Gauge panics if name is empty or f is nil, and
// Var panics if name is one the variable already has (a member the
// package documentation lists, or another Gauge's).
func Gauge(name string, f func() int64) Option {
	if name == "" || f == nil {
		panic(fmt.Sprintf("semexpvar: Gauge(%q, f): want a name and a non-nil f", name))
	}
	return func(e *exporter) { e.gauges = append(e.gauges, gauge{name, f}) }
}

// Publish publishes, as the expvar variable name, what s reports about
// itself; see [Var]. Like expvar.Publish, it panics if name is already in
// use.
func Publish(name string, s sem.Semaphore, opts ...Option) {
	expvar.Publish(name, Var(s, opts...))
}

// Var returns a variable that reports, at every read, what s tells about
// itself, as the package documentation lists, and what the options add; put
// it in an expvar.Map of your own, or publish it with [Publish]. If s is a
// [sem.Observer], Var installs its OnWait function, in place of any other.
// Var panics if s reports nothing: none of the methods the package
// documentation lists, and no Gauge.
func Var(s sem.Semaphore, opts ...Option) expvar.Func {
	e := &exporter{}
	e.probe(s)
	for _, o := range opts {
		o(e)
	}
	if len(e.gauges) == 0 && e.observer == nil {
		panic(fmt.Sprintf("semexpvar: Var(%T): the semaphore reports nothing "+
			"(no Size, Available, Limit, InFlight, Queued, Refused, Waiting or OnWait method) and no Gauge was given", s))
	}
	e.mustNameOnce(s)
	if e.observer != nil {
		e.observer.OnWait(e.waits.observe)
	}
	return e.read
}

// mustNameOnce panics if two members of the variable would have one name:
// a Gauge would silently hide a number the semaphore reports.
func (e *exporter) mustNameOnce(s sem.Semaphore) {
	names := map[string]bool{}
	if e.observer != nil {
		for _, n := range []string{"waiting_requests", "waiting_permits", "waits", "waits_failed", "wait_seconds_sum", "wait_seconds_bucket"} {
			names[n] = true
		}
	}
	for _, g := range e.gauges {
		if names[g.name] {
			panic(fmt.Sprintf("semexpvar: Var(%T): two members named %q; give the Gauge another name", s, g.name))
		}
		names[g.name] = true
	}
}

// The methods Var looks for, one small interface each, so that a new one
// joins the export with a line in probe.
type (
	sizer      interface{ Size() int64 }
	availabler interface{ Available() int64 }
	limiter    interface{ Limit() int64 }
	inFlighter interface{ InFlight() int64 }
	queuer     interface{ Queued() int64 }
	refuser    interface{ Refused() int64 }
)

// exporter reads the numbers of one semaphore.
type exporter struct {
	gauges   []gauge
	observer sem.Observer // nil if the semaphore is not one
	waits    histogram
}

// gauge is one number read at every read of the variable.
type gauge struct {
	name string
	read func() int64
}

// probe finds the numbers s reports.
func (e *exporter) probe(s sem.Semaphore) {
	if v, ok := s.(sizer); ok {
		e.gauges = append(e.gauges, gauge{"size", v.Size})
	}
	if v, ok := s.(availabler); ok {
		e.gauges = append(e.gauges, gauge{"available", v.Available})
	}
	if v, ok := s.(limiter); ok {
		e.gauges = append(e.gauges, gauge{"limit", v.Limit})
	}
	if v, ok := s.(inFlighter); ok {
		e.gauges = append(e.gauges, gauge{"in_flight", v.InFlight})
	}
	if v, ok := s.(queuer); ok {
		e.gauges = append(e.gauges, gauge{"queued", v.Queued})
	}
	if v, ok := s.(refuser); ok {
		e.gauges = append(e.gauges, gauge{"refused", v.Refused})
	}
	e.observer, _ = s.(sem.Observer)
}

// read returns the numbers as of now.
func (e *exporter) read() any {
	m := make(map[string]any, len(e.gauges)+6)
	for _, g := range e.gauges {
		m[g.name] = g.read()
	}
	if e.observer != nil {
		requests, permits := e.observer.Waiting()
		m["waiting_requests"] = requests
		m["waiting_permits"] = permits
		e.waits.export(m)
	}
	return m
}
