// Package redissem is a fair, weighted counting semaphore shared by many
// processes through Redis: at most size permits are held at once across
// every process that uses the same name.
//
// Guarantees, while Redis keeps its writes:
//
//   - Never more than size permits granted at once, whatever the clients'
//     clocks: leases and expiries are kept in the Redis server's time.
//   - Requests of any weight are granted in the order they reached Redis
//     (FIFO); a large request is never starved, and TryAcquire never
//     barges past a waiter.
//   - One round trip per Acquire, Release and TryAcquire; a waiter is woken
//     by a notification, not by polling.
//   - A holder whose process dies gives its permits back when its lease
//     expires. A holder cut off from Redis sees [Permit.Done] close before
//     Redis can give its permits to anyone else.
//   - Every grant carries a fencing token ([Permit.Token]) that increases
//     in grant order, so a protected resource can refuse a stale holder.
//
// A [Semaphore] implements sem.Semaphore, sem.Closer, sem.Resizer (the size
// lives in Redis: a Resize through one handle holds for all) and
// sem.Observer (whose Waiting reads the queue in Redis, across every
// handle on the name).
//
// Choose it when Redis is what you already run and the limit protects
// capacity (renders, connections, calls to a rate-limited API). Redis
// replicates asynchronously and may lose recent writes in a failover or a
// restart from a snapshot, so a grant can be lost and given twice: fence the
// resource with the token, or choose etcdsem, when exceeding the limit is a
// correctness bug.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
//	s, err := redissem.New(ctx, rdb, "renders", 4)
//	if err != nil {
//		return err // Redis unreachable, or "renders" exists with another size
//	}
//	defer s.Close()
//	if err := s.Acquire(ctx, 1); err != nil {
//		return err
//	}
//	defer s.Release(1)
//
// # Leases
//
// Every grant is a lease in the server's time ([WithLease]), refreshed in
// the background while it is held. [Permit.Done] closes as soon as the
// holder can no longer be sure Redis still holds its lease: the send time
// of the last refresh that succeeded, plus the lease, minus a margin of a
// tenth of the lease (for the holder to stop) and a hundredth (for its
// clock running slower than the server's). It closes on time even while a
// refresh is stuck on a cut connection, and a process that resumes from a
// pause past that time finds it closed (after a suspend to RAM, which stops
// Go's timers, within a twelfth of the lease).
//
// # What Redis cannot promise
//
// A failover to a replica that had not received a grant, or a restart from
// an RDB snapshot or an AOF fsynced every second, forgets the grant: others
// are admitted while its holder still works, until the holder's next
// refresh closes its Done. [WithReplicas] narrows the window of a failover
// without closing it; appendfsync always closes that of a restart. The
// fencing tokens keep increasing across a restart, and across a failover
// to a replica that received the last grant; to one that did not, as long
// as its clock is behind the old primary's by less than the failover took. If Redis evicts or loses the
// semaphore's keys, grants are refused with an error wrapping
// [ErrStateLost] until every earlier lease could have run out; use
// maxmemory-policy noeviction or a volatile-* policy.
//
// A process paused longer than its lease loses its grant while it may still
// act on it: check Done before each act, and fence the resource.
//
// # Server settings
//
// A step of the server's clock, forward or back, neither reaps a holder
// that refreshes on time nor stretches a lease. A Redis full under
// maxmemory-policy noeviction (recommended) or volatile-* still takes
// releases and refreshes; new requests fail with an error wrapping
// [ErrUnavailable] until there is room. So do requests while the name's
// Cluster slot migrates, and every refusal of a server that cannot run a
// script now (OOM, TRYAGAIN, CLUSTERDOWN, MASTERDOWN, LOADING, READONLY,
// BUSY, NOREPLICAS); the handle retries its refreshes, releases and
// withdrawals. On a [Session], each grant keeps its own fate: a stalled
// server costs only the grants whose keys it holds.
//
// Release has no error in the semaphore contract: if Redis cannot be
// reached, the permits leave the handle at once, the release is retried in
// the background, and they come back when their lease expires at the
// latest. [Semaphore.ReleaseErr] and [WithErrorHandler] report it.
//
// The design, the failure modes and the evidence for each claim are in
// https://github.com/semacat/sem/blob/main/docs/distributed.md.
package redissem

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/semacat/sem"
)

const pkg = "redissem"

var (
	// ErrLeaseLost is wrapped by the error of a release, and closes
	// Permit.Done, when Redis no longer holds a grant of this handle: its
	// lease expired before a refresh reached Redis, or Redis lost it. Other
	// clients may hold those permits now.
	ErrLeaseLost = errors.New("redissem: lease lost: Redis no longer holds the grant")

	// ErrSizeMismatch is wrapped by the error of New when the name already
	// holds a semaphore of another size.
	ErrSizeMismatch = errors.New("redissem: semaphore exists with a different size")

	// ErrClosed is returned by Acquire on a Semaphore that was closed, and by
	// waiting Acquires when Close is called. It wraps [sem.ErrClosed], so code written
	// against the sem interfaces can test for it with errors.Is.
	ErrClosed = fmt.Errorf("redissem: semaphore handle is closed: %w", sem.ErrClosed)

	// ErrUnavailable is wrapped by the errors of operations that could not
	// complete a round trip to Redis: the connection failed, or no reply came
	// in time. Whether Redis executed the operation is then unknown; redissem
	// undoes or retries it as each method documents.
	ErrUnavailable = errors.New("redissem: server unreachable")

	// ErrStateLost is wrapped by the error of an Acquire that Redis refused
	// because it found the semaphore's keys evicted or deleted; grants resume
	// once every lease handed out before could have run out.
	ErrStateLost = errors.New("redissem: semaphore state lost in Redis")

	// ErrNotReplicated is wrapped by the error of an Acquire whose grant fewer
	// replicas confirmed than WithReplicas asks; the grant was given back.
	ErrNotReplicated = errors.New("redissem: grant not confirmed by enough replicas")

	// ErrReleased is what Permit.Err returns once the Permit was released.
	ErrReleased = errors.New("redissem: permit released")
)

// Semaphore is one process's handle on a semaphore stored in Redis under a
// name. All handles on the same name share its permits. A handle is safe for
// concurrent use; the permits its callers hold are counted per handle, so a
// Release must go through the handle that acquired.
type Semaphore struct {
	rdb         redis.UniversalClient
	name        string
	size        atomic.Int64 // as Redis last reported it
	keys        []string
	base        []any         // ARGV[2:5] of every script: channel prefix, lease ms, tombstone ms, idle ms
	idle        time.Duration // how long an idle name's counters last in Redis
	born        time.Time     // when New made the handle
	lastSent    atomic.Int64  // when it last sent a script, as time since born
	handle      string        // random id of this handle
	lease       time.Duration
	margin      time.Duration // how long before its lease ends a holder stops trusting it
	timeout     time.Duration
	pollMax     time.Duration
	replicas    int
	replicaWait time.Duration
	onError     func(error)
	hooks       *hooks
	onWait      atomic.Pointer[func(sem.WaitEvent)]

	ps      *redis.PubSub // its own subscription, nil on a Session
	session *Session
	channel string        // where Redis publishes the handle's grants
	done    chan struct{} // closed by Close
	kick    chan struct{} // a release or withdrawal awaits a retry
	wg      sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	seq     uint64
	held    int64               // permits the callers hold through Acquire and TryAcquire
	grants  []*grant            // every grant the handle holds, oldest first
	pending map[string]struct{} // releases and withdrawals that have not reached Redis yet
	waiters map[string]*waiter  // queued request id -> its Acquire
	// expiry ends grants at their end of validity (expiry.go); never
	// started on a Session, whose timer serves its handles.
	expiry expiryTimer

	// On a Session, guarded by the Session's mu: when the handle's next
	// refresh is due, and whether one is on its way (sessionlease.go).
	refreshDue time.Time
	refreshing bool
}

// New returns a handle on the semaphore called name with size permits,
// creating it in Redis if it does not exist. Its keys are the prefix
// (see [WithPrefix]) followed by {name}, a hash tag that keeps them in
// one Redis Cluster slot. It fails, with an error wrapping ErrUnavailable,
// if Redis cannot be reached or refuses the script (and wrapping ctx's
// error too if ctx is done by then), or, with an error wrapping
// ErrSizeMismatch, if the name already holds a semaphore of another size.
//
// Its round trips are bounded by ctx and the handle's timeout only as far
// as go-redis bounds them: dialing and waiting for a pooled connection
// heed the context, but go-redis waits for a reply until the client's
// ReadTimeout (3 seconds by default, forever with -1), whatever the
// context, unless the client has ContextTimeoutEnabled. So against a
// server that accepts and never answers, New returns after ReadTimeout,
// not at ctx's deadline; set ContextTimeoutEnabled, or a ReadTimeout no
// longer than you can wait. The same holds for every round trip of the
// handle and of a [Session]. It panics if size is less than 1, or if name is empty or
// holds a brace or a control character.
//
// The handle keeps a pub/sub subscription and a goroutine that refreshes
// its leases, or shares a [Session]'s; call Close when done with it.
func New(ctx context.Context, rdb redis.UniversalClient, name string, size int64, opts ...Option) (*Semaphore, error) {
	checkName(name)
	checkSize(size)
	o := options{lease: DefaultLease, timeout: DefaultTimeout, prefix: DefaultPrefix, idle: idleExpiry}
	for _, opt := range opts {
		opt(&o)
	}
	if o.pollMax <= 0 || o.pollMax > o.lease/3 {
		o.pollMax = min(o.lease/3, DefaultPollMax)
	}
	if err := checkReplicasClient(rdb, o.replicas); err != nil {
		return nil, fmt.Errorf("%s: New(%q, %d): %w", pkg, name, size, err)
	}
	handle := newHandleID()
	prefix := o.prefix + "{" + name + "}:"
	s := &Semaphore{
		rdb:  rdb,
		name: name,
		keys: []string{prefix + "meta", prefix + "holders", prefix + "recs",
			prefix + "queue", prefix + "wexp"},
		base:        []any{prefix + "wake:", o.lease.Milliseconds(), (o.lease + o.timeout).Milliseconds(), o.idle.Milliseconds()},
		idle:        o.idle,
		born:        time.Now(),
		handle:      handle,
		channel:     prefix + "wake:" + handle,
		lease:       o.lease,
		margin:      safetyMargin(o.lease),
		timeout:     o.timeout,
		pollMax:     o.pollMax,
		replicas:    o.replicas,
		replicaWait: o.replicaWait,
		onError:     o.onError,
		hooks:       o.hooks,
		done:        make(chan struct{}),
		kick:        make(chan struct{}, 1),
		pending:     make(map[string]struct{}),
		waiters:     make(map[string]*waiter),
	}
	if o.session != nil {
		s.kick = o.session.kick // the Session's refresher retries for every handle
	}
	s.size.Store(size)
	tctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if _, err := s.info(tctx, true); err != nil {
		return nil, newError(ctx, name, size, err)
	}
	if err := s.subscribe(tctx, o.session); err != nil {
		return nil, newError(ctx, name, size, err)
	}
	s.startExpiry()
	if s.session == nil {
		s.wg.Add(1)
		go s.refresher()
	}
	return s, nil
}

// newError is New's error: err, which wraps ErrUnavailable if the round
// trip failed, and ctx's error too if ctx is done.
func newError(ctx context.Context, name string, size int64, err error) error {
	return fmt.Errorf("%s: New(%q, %d): %w", pkg, name, size, withCtxErr(ctx, err))
}

// withCtxErr returns err, made to wrap ctx's error too if ctx is done, so
// that both errors.Is(err, ErrUnavailable) and errors.Is(err,
// context.DeadlineExceeded) hold for a round trip that ran out of time.
func withCtxErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: %w", cerr, err)
	}
	return err
}

// newHandleID returns a random id that names this handle in Redis.
func newHandleID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Name returns the name of the semaphore in Redis.
func (s *Semaphore) Name() string { return s.name }

// Size returns the total number of permits, as Redis last reported it to
// this handle: a Resize through another handle shows after this handle's
// next round trip.
func (s *Semaphore) Size() int64 { return s.size.Load() }

// Available returns the number of permits free at this instant across all
// handles, after reaping expired holders. It is a snapshot for monitoring and
// teaching, stale as soon as it returns. It costs a round trip, bounded by
// ctx and the handle's timeout, and returns its error if that fails.
func (s *Semaphore) Available(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	v, err := s.info(ctx, false)
	if err != nil {
		return 0, fmt.Errorf("%s: Available on %q: %w", pkg, s.name, err)
	}
	return v[0], nil
}

// Close ends the handle: its queued requests are withdrawn and waiting
// Acquires return ErrClosed, the permits its callers still hold are
// released in Redis (a later Release
// of them only updates the handle's books), the Done channels of its Permits
// close with ErrClosed, and its subscription and lease refresher stop. Later
// Acquires return ErrClosed and TryAcquires false. Close returns the error
// of that final release, if any; the permits then come back when their
// lease expires. Closing again does nothing and returns nil.
func (s *Semaphore) Close() error {
	return s.shut(ErrClosed)
}

// shut closes the handle, ending its grants with cause.
func (s *Semaphore) shut(cause error) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.expiry.stop()
	var args []any
	for _, g := range s.grants {
		args = append(args, g.id, 0)
		g.end(cause)
	}
	for id := range s.pending {
		args = append(args, id, 0)
	}
	// The queued requests too, before Close returns: their Acquires
	// withdraw them as well, but maybe after the caller closed the client.
	for id := range s.waiters {
		args = append(args, id, 0)
	}
	s.grants, s.pending = nil, nil
	s.mu.Unlock()
	close(s.done)
	var err error
	if len(args) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
		defer cancel()
		if _, uerr := s.update(ctx, args); uerr != nil {
			err = fmt.Errorf("%s: Close of %q: releasing held permits: %w; they return when their lease expires (within %v)", pkg, s.name, uerr, s.lease)
		}
	}
	if s.session != nil {
		err = errors.Join(err, s.session.unsubscribe(s.channel))
	} else {
		err = errors.Join(err, s.ps.Close())
	}
	s.wg.Wait()
	return err
}

// subscribe subscribes the handle to its notification channel: through ss
// if not nil, else on a connection of its own, confirmed before it returns.
func (s *Semaphore) subscribe(ctx context.Context, ss *Session) error {
	if ss != nil {
		s.session = ss
		return ss.subscribe(ctx, s.channel, s)
	}
	s.ps = s.rdb.Subscribe(ctx, s.channel)
	if _, err := s.ps.Receive(ctx); err != nil {
		_ = s.ps.Close()
		return fmt.Errorf("subscribing: %w", s.scriptError(err))
	}
	s.wg.Add(1)
	go s.dispatch(s.ps.Channel())
	return nil
}
