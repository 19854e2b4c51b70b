package redissem

import (
	"fmt"
	"strings"
	"time"
)

// idleExpiry is how long the counters of a name nothing holds or waits on
// stay in Redis after the last script on it.
const idleExpiry = 24 * time.Hour

// Default option values.
const (
	DefaultLease   = 10 * time.Second
	DefaultTimeout = 5 * time.Second
	// MinLease is the shortest lease WithLease accepts: a third of it must
	// leave room for a refresh's round trip.
	MinLease = 30 * time.Millisecond
	// DefaultPollMax caps the interval at which a handle refreshes its
	// waiting Acquires' queue entries, unless WithPollInterval says
	// otherwise.
	DefaultPollMax = time.Second
	// DefaultPrefix starts the name of every key a semaphore keeps in
	// Redis, unless WithPrefix says otherwise.
	DefaultPrefix = "redissem:"
)

// Option configures a Semaphore handle.
type Option func(*options)

type options struct {
	session     *Session
	prefix      string
	lease       time.Duration
	timeout     time.Duration
	pollMax     time.Duration
	onError     func(error)
	replicas    int
	replicaWait time.Duration
	hooks       *hooks
	idle        time.Duration // idleExpiry, shorter in the package's tests
}

// hooks lets the package's own tests reach into a handle's background work;
// it is nil outside them.
type hooks struct {
	// skipRefresh, when set and returning true, makes the refresher skip a
	// due refresh as if it had failed: the handle is cut off from Redis.
	skipRefresh func() bool
	// wallClock, when set, reads the wall clock instead of time.Now.
	wallClock func() time.Time
	// heardGrant, when set, runs when a waiting Acquire hears of its
	// grant, before it takes it over: a test can hold it back there.
	heardGrant func()
}

// WithPrefix sets the start of the names of the keys and the pub/sub
// channels a semaphore uses (default DefaultPrefix), so that it can live
// in a namespace that ACL rules or a shared server assign. Every handle on a
// name must use the same prefix: handles with different prefixes are
// different semaphores. It panics if prefix holds a brace, which would
// change the hash tag that keeps the keys in one Cluster slot.
func WithPrefix(prefix string) Option {
	if strings.ContainsAny(prefix, "{}") {
		panic(fmt.Sprintf("%s: WithPrefix(%q): the prefix must not hold a brace", pkg, prefix))
	}
	return func(o *options) { o.prefix = prefix }
}

// WithLease sets how long a grant, and a waiter's place in the queue, stays
// valid without a refresh (default DefaultLease). It bounds how long the
// permits of a dead process stay taken. Refreshes run every third of it. It
// panics if d is below MinLease.
func WithLease(d time.Duration) Option {
	if d < MinLease {
		panic(fmt.Sprintf("%s: WithLease(%v): the lease must be at least %v", pkg, d, MinLease))
	}
	return func(o *options) { o.lease = d }
}

// WithTimeout bounds each round trip the handle makes on its own behalf:
// TryAcquire, Release, refreshes, withdrawals (default DefaultTimeout). The round trips
// of Acquire are bounded by it and by Acquire's ctx. It panics if d is not
// positive.
//
// go-redis gives up waiting for a reply after the client's ReadTimeout
// (unless ContextTimeoutEnabled) and retries the command on another
// connection, while the first may still run. Every script is safe to run
// twice, and a request that ends leaves a tombstone in Redis for a lease
// plus the timeout d, so a retry that lands after its original finds it
// done; set ReadTimeout no
// longer than d, so that a stalled server costs a retry instead of the
// whole timeout.
func WithTimeout(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("%s: WithTimeout(%v): the timeout must be positive", pkg, d))
	}
	return func(o *options) { o.timeout = d }
}

// WithPollInterval caps the interval at which a handle with waiting
// Acquires refreshes their queue entries in Redis, in one round trip for all
// of them (default: a third of the lease, at most DefaultPollMax). The
// refresh also catches a grant whose notification was lost, and makes Redis
// reap a holder that expired silently, so the interval bounds how long such
// a waiter waits too long. It is clamped to a third of the lease, because the
// refresh keeps the entries alive.
func WithPollInterval(d time.Duration) Option {
	return func(o *options) { o.pollMax = d }
}

// WithErrorHandler sets a function called with every error that has no
// caller to return to: a failed Release, refresh or withdrawal, a TryAcquire
// that could not reach Redis, a lost lease (wrapping ErrLeaseLost). It is
// called from the handle's goroutines and must not block.
func WithErrorHandler(f func(error)) Option {
	return func(o *options) { o.onError = f }
}

// WithReplicas turns on the replication guard, off by default: after each
// grant, the handle asks Redis (WAIT) to confirm within wait that n replicas
// have received it. If fewer confirm, the grant is given back and
// Acquire, AcquirePermit and TryAcquire fail with an error wrapping
// ErrNotReplicated. The guard costs one more round trip per grant, which
// lasts until the replicas confirm.
//
// It narrows the window in which a failover loses a grant, it does not close
// it: Redis replication stays asynchronous, a replica that confirmed may
// still not be the one promoted, and WAIT does not make the write durable
// on it. On a Redis Cluster, WAIT goes to the master that holds the
// semaphore's keys, on the connection of a write to them; New refuses the
// guard on a client that is neither a *redis.Client nor a
// *redis.ClusterClient (a Ring would send WAIT to any shard). It panics if
// n is less than 1 or wait is not positive.
func WithReplicas(n int, wait time.Duration) Option {
	if n < 1 || wait <= 0 {
		panic(fmt.Sprintf("%s: WithReplicas(%d, %v): need at least 1 replica and a positive wait", pkg, n, wait))
	}
	return func(o *options) { o.replicas, o.replicaWait = n, wait }
}
