package etcdsem

import (
	"fmt"
	"time"
)

// DefaultPrefix is the key prefix under which semaphores live unless
// [WithPrefix] says otherwise.
const DefaultPrefix = "/semacat/etcdsem/"

// Defaults for [WithLease] and [WithTimeout].
const (
	DefaultLease   = 15 * time.Second
	DefaultTimeout = 5 * time.Second
)

// Option configures a handle made by [New], or a [Session] made by
// [NewSession]. A constructor given an option it does not use panics,
// naming it: NewSession uses only [WithLease] and [WithTimeout], and New
// with [WithSession] takes its lease's TTL from the session, not from
// [WithLease].
type Option func(*options)

type options struct {
	lease   time.Duration
	timeout time.Duration
	prefix  string
	owner   string
	onError func(error)
	session *Session
	set     []string // the names of the options given, in order
}

// buildOptions applies opts to the defaults for the constructor method,
// and panics if one of them is among those the constructor does not use.
func buildOptions(method string, opts []Option, unused ...string) options {
	o := defaultOptions()
	for i, opt := range opts {
		if opt == nil {
			panic(fmt.Sprintf("%s: %s: option %d of %d is nil", pkg, method, i+1, len(opts)))
		}
		opt(&o)
	}
	for _, name := range o.set {
		for _, u := range unused {
			if name == u {
				panic(fmt.Sprintf("%s: %s: option %s is not used by %s%s", pkg, method, name, method, unusedWhy[name]))
			}
		}
	}
	return o
}

// unusedWhy says where an option refused by a constructor belongs.
var unusedWhy = map[string]string{
	"WithLease":        " (a handle made WithSession has its session's lease: give WithLease to NewSession)",
	"WithPrefix":       " (it configures a handle: give it to New)",
	"WithOwner":        " (it configures a handle: give it to New)",
	"WithErrorHandler": " (it configures a handle: give it to New)",
	"WithSession":      " (it configures a handle: give it to New)",
}

func defaultOptions() options {
	return options{lease: DefaultLease, timeout: DefaultTimeout, prefix: DefaultPrefix}
}

// WithLease sets the TTL of the handle's lease (or, for [NewSession], of
// the session's; a handle made [WithSession] has its session's): how long after a crash, or
// after losing contact with etcd, its permits come back. It is rounded up to
// whole seconds, and etcd raises it to its own minimum (a few election
// timeouts). The default is [DefaultLease]. Shorter hands permits of crashed
// holders back sooner; longer tolerates longer pauses and partitions. A
// holder learns it can no longer trust its lease somewhat before the TTL
// runs out: see [Permit.Done]. It panics if d is not positive.
func WithLease(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("%s: WithLease(%v): the TTL must be positive", pkg, d))
	}
	return func(o *options) { o.lease = d; o.set = append(o.set, "WithLease") }
}

// WithTimeout bounds the calls that take no context (TryAcquire, Release,
// Close), the round trips of New and NewSession (with their context), each
// round trip of [Semaphore.ReleaseErr] and
// [Permit.Release], each attempt of an Acquire to join the queue, and the
// clean-up an Acquire does after its context ended. The default is
// [DefaultTimeout]. It panics if d is not positive.
func WithTimeout(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("%s: WithTimeout(%v): the timeout must be positive", pkg, d))
	}
	return func(o *options) { o.timeout = d; o.set = append(o.set, "WithTimeout") }
}

// WithPrefix sets the key prefix under which the semaphore lives. Handles
// share a semaphore when they use the same prefix and name. The default is
// [DefaultPrefix].
func WithPrefix(prefix string) Option {
	return func(o *options) { o.prefix = prefix; o.set = append(o.set, "WithPrefix") }
}

// WithOwner stores a label (for example "host:pid") with each of the handle's
// keys, so that tools listing the queue can say who holds what.
func WithOwner(owner string) Option {
	return func(o *options) { o.owner = owner; o.set = append(o.set, "WithOwner") }
}

// WithErrorHandler sets a function that receives the errors of the calls that
// cannot return one: Release, TryAcquire, and the background retries of
// deletions that failed. It is called from the goroutine that met the error
// and must not block for long.
func WithErrorHandler(f func(error)) Option {
	return func(o *options) { o.onError = f; o.set = append(o.set, "WithErrorHandler") }
}
