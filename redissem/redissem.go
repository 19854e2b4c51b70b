// Package redissem is a fair, weighted counting semaphore shared by many
// processes through Redis, behind the semacat contract.
//
// # Why not the classic recipes
//
// The well-known Redis counting semaphores keep the holders in a sorted set
// scored by the client's timestamp, drop entries older than a timeout, and
// count the caller in if its rank is below the limit. They trust every
// client's clock (a client whose clock runs ahead reaps live holders; one
// whose clock runs behind ranks ahead of them, and either way more than size
// hold at once), need several round trips per acquire with races between
// them (hence the "fair" variant with a counter and a second sorted set, and
// the "correct" one wrapped in yet another lock), and wait by polling.
//
// # Design
//
// Every operation is one Lua script, so it is atomic and costs one round
// trip: Acquire, TryAcquire, Release, the lease refresh, a waiter's poll and
// a waiter's withdrawal (scripts.go holds them all). Time comes only from the
// Redis server (the TIME command inside the script): every lease and expiry is
// written and compared in the server's clock, so skew between clients cannot
// admit anyone. The client's clock only paces its own timers and tells a
// holder when to stop trusting its lease.
//
// A request takes a ticket from a counter kept on the server. If nobody
// is queued and its weight fits, it is granted at once; otherwise it joins a
// queue ordered by ticket. Waiters are admitted strictly in ticket order: the
// head is granted as soon as it fits, and a head that does not fit blocks
// everyone behind it, so admission is FIFO for any mix of weights, a large
// request is never starved, and TryAcquire never barges past a queued
// waiter. Admission happens inside whichever script makes room (a release, a
// withdrawal, or the reaping of an expired holder), which records the grant
// and publishes it on the waiter's handle channel (pub/sub).
//
// Every grant is a lease in server time. While a handle holds permits, a
// background goroutine refreshes all of its grants in one script every third
// of the lease. A holder whose process dies stops refreshing, and the next
// script that runs after its lease passes reaps it and admits the waiters that
// now fit. A waiter's queue entry is a lease too: the waiter pushes it back
// each time it polls, so the entry of a dead waiter expires and stops
// blocking the queue. Polling is only the fallback, with a backoff from
// PollMin up to a third of the lease (at most DefaultPollMax): it catches a
// notification lost while the pub/sub connection was down and a holder that
// expired silently. A poll that fails is retried for as long as the waiter's entry
// can still be alive (the lease since the last poll that got through), so a
// short outage does not cost the waiter its place. A waiter whose context is
// done withdraws its entry (or gives back a grant that raced with the
// cancellation), and those behind it are admitted if they now fit, so a
// canceled Acquire leaves the semaphore as if it never happened.
//
// Every script is idempotent in its request id (a client-generated
// "<handle>/<seq>"), so go-redis may retry a script whose reply was lost
// without taking permits twice; a release sets a grant's count to the value
// the client still holds, only ever downwards, so releases and refreshes
// commute. Release gives back the handle's oldest grants first.
//
// # Fencing tokens and lease expiry
//
// Each grant carries a fencing token ([Permit.Token]), drawn when it is
// granted from a counter that moves to max(last + 1, the server's time in
// microseconds): tokens strictly increase in grant order, also across a
// Redis restart that lost the latest writes (an RDB snapshot, an AOF fsynced
// every second, a failover to a replica that lagged), as long as the
// server's clock does not step back.
//
// [Permit.Done] closes as soon as the holder can no longer be sure Redis
// still holds its lease: at the send time of the last refresh that
// succeeded (for a new grant, of the last request Redis answered before
// granting it), plus the lease, minus a margin: a tenth of the lease for the
// holder to stop, plus a hundredth for clock drift. The server starts the
// lease when it runs the script, after the send, so a holder cut off from
// Redis sees Done close before the server can reap its grant and admit
// someone else, as long as its clock runs no more than a hundredth slower
// than the server's. A timer closes it, not the goroutine that refreshes, so
// a refresh stuck on a cut connection does not delay it; and Done and
// [Permit.Err] compare the clock with that time themselves, so a paused
// process sees it closed as soon as it resumes. A refresh that finds the
// grant gone closes Done at once.
//
// # Lost state
//
// If Redis evicts the semaphore's keys (an allkeys-* maxmemory policy) or
// loses them, recreating them empty would admit others beside the holders
// that still believe they hold. The scripts notice keys missing behind the
// counters (or the counters missing for a handle that saw them), wipe what
// is left, and refuse every grant, with an error wrapping ErrStateLost, until
// each lease handed out before could have run out: the latest expiry still
// recorded, and at least the lease of the handle that noticed (so give every
// handle of a name the same lease). The holders find their grants gone at
// their next refresh. One case stays open: if all the keys vanish and a New
// from a new process runs before any handle that used them, the semaphore
// looks new and is created afresh, and others may be admitted until the
// holders' next refresh closes their Done. Use maxmemory-policy noeviction or a
// volatile-* policy: the keys have no TTL, so those never evict them.
//
// # What Redis cannot promise
//
// Redis replicates asynchronously. If the primary fails after granting
// permits and before a replica received the grant, the promoted replica does
// not know it, and admits others: more than size may hold at once.
// [WithReplicas] waits for replicas to confirm each grant, which narrows that
// window without closing it; neither does Redlock against a paused process.
//
// A restart loses writes the same way. Redis restarted from an RDB snapshot,
// or from an append-only file fsynced every second, comes back with the
// semaphore's keys present but stale: the grants made after the snapshot or
// in the last second are gone. Nothing is missing behind the counters, so
// the scripts cannot tell (ErrStateLost needs missing keys), and the
// forgotten permits are granted again while their holders still believe
// they hold them, until the holders' next refresh closes their Done. The
// fencing tokens still increase across such a restart, so a resource that
// checks them rejects the stale holder. Only an append-only file fsynced on
// every write (appendfsync always) keeps every grant Redis acknowledged.
//
// A process paused longer than its lease (a stop-the-world pause, a suspended
// VM, a long page-fault storm) loses its grant while it may still act on it.
// Use the fencing token where the protected resource can check it, and choose
// etcdsem, whose grants are committed by a Raft majority before they are
// reported, when exceeding the limit is a correctness bug rather than a
// brief overload.
//
// Release has no error in the contract. If Redis cannot be reached, the
// permits are dropped from this handle's books anyway: the background
// goroutine keeps retrying the release, and if Redis stays out of reach they
// come back when their lease expires. The error reaches the caller through
// [Semaphore.ReleaseErr] and the handler set with [WithErrorHandler].
//
// Scripts read the server's TIME and then write. Redis 5 and later replicate
// the effects of a script, not the script, which makes that safe; the prelude
// asks Redis 3.2 and 4 for effects replication too. The tests run against
// Redis 7.0.
package redissem

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/semacat/sem"

	"github.com/semacat/sem/internal/check"
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
	size        int64
	keys        []string
	base        []any  // ARGV[1:3] of every script: size, channel prefix, lease ms
	handle      string // random id of this handle
	lease       time.Duration
	margin      time.Duration // how long before its lease ends a holder stops trusting it
	timeout     time.Duration
	pollMin     time.Duration
	pollMax     time.Duration
	replicas    int
	replicaWait time.Duration
	onError     func(error)
	hooks       *hooks

	ps   *redis.PubSub
	done chan struct{} // closed by Close
	kick chan struct{} // a release or withdrawal awaits a retry
	wg   sync.WaitGroup

	// expiry ends grants at their end of validity (expiry.go).
	expiry *time.Timer

	mu       sync.Mutex
	closed   bool
	seq      uint64
	held     int64                  // permits the callers hold through Acquire and TryAcquire
	grants   []*grant               // every grant the handle holds, oldest first
	pending  map[string]struct{}    // releases and withdrawals that have not reached Redis yet
	waiters  map[string]chan string // queued request id -> its grant's token
	expiryAt time.Time              // when expiry fires; zero when unarmed
}

// New returns a handle on the semaphore called name with size permits,
// creating it in Redis if it does not exist. It fails if Redis cannot be
// reached, or, with an error wrapping ErrSizeMismatch, if the name already
// holds a semaphore of another size. It panics if size is less than 1.
//
// The handle keeps a pub/sub subscription and a goroutine that refreshes its
// leases; call Close when done with it.
func New(rdb redis.UniversalClient, name string, size int64, opts ...Option) (*Semaphore, error) {
	check.Size(pkg, size)
	o := options{lease: DefaultLease, timeout: DefaultTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	if o.pollMax <= 0 || o.pollMax > o.lease/3 {
		o.pollMax = min(o.lease/3, DefaultPollMax)
	}
	handle := newHandleID()
	prefix := "redissem:{" + name + "}:"
	s := &Semaphore{
		rdb:  rdb,
		name: name,
		size: size,
		keys: []string{prefix + "meta", prefix + "holders", prefix + "recs",
			prefix + "queue", prefix + "wexp"},
		base:        []any{size, prefix + "wake:", o.lease.Milliseconds()},
		handle:      handle,
		lease:       o.lease,
		margin:      safetyMargin(o.lease),
		timeout:     o.timeout,
		pollMin:     min(PollMin, o.pollMax),
		pollMax:     o.pollMax,
		replicas:    o.replicas,
		replicaWait: o.replicaWait,
		onError:     o.onError,
		hooks:       o.hooks,
		done:        make(chan struct{}),
		kick:        make(chan struct{}, 1),
		pending:     make(map[string]struct{}),
		waiters:     make(map[string]chan string),
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	if _, err := s.ints(s.eval(ctx, infoScript, true)); err != nil {
		return nil, fmt.Errorf("%s: New(%q, %d): %w", pkg, name, size, err)
	}
	s.ps = rdb.Subscribe(ctx, prefix+"wake:"+handle)
	if _, err := s.ps.Receive(ctx); err != nil {
		_ = s.ps.Close()
		return nil, fmt.Errorf("%s: New(%q, %d): subscribing: %w", pkg, name, size, s.scriptError(err))
	}
	s.startExpiry()
	s.wg.Add(2)
	go s.dispatch(s.ps.Channel())
	go s.refresher()
	return s, nil
}

// newHandleID returns a random id that names this handle in Redis.
func newHandleID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Name returns the name of the semaphore in Redis.
func (s *Semaphore) Name() string { return s.name }

// Size returns the total number of permits.
func (s *Semaphore) Size() int64 { return s.size }

// Available returns the number of permits free at this instant across all
// handles, after reaping expired holders. It is a snapshot for monitoring and
// teaching, stale as soon as it returns. It costs a round trip, bounded by
// ctx and the handle's timeout, and returns its error if that fails.
func (s *Semaphore) Available(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	v, err := s.ints(s.eval(ctx, infoScript, false))
	if err != nil {
		return 0, fmt.Errorf("%s: Available on %q: %w", pkg, s.name, err)
	}
	return v[0], nil
}

func (s *Semaphore) report(err error) {
	if s.onError != nil {
		s.onError(err)
	}
}

// nextID returns a new request id; s.mu must be held.
func (s *Semaphore) nextID() string {
	s.seq++
	return s.handle + "/" + strconv.FormatUint(s.seq, 10)
}

// Close ends the handle: waiting Acquires return ErrClosed after withdrawing,
// the permits its callers still hold are released in Redis (a later Release
// of them only updates the handle's books), the Done channels of its Permits
// close with ErrClosed, and its subscription and lease refresher stop. Later
// Acquires return ErrClosed and TryAcquires false. Close returns the error
// of that final release, if any; the permits then come back when their
// lease expires. Closing again does nothing and returns nil.
func (s *Semaphore) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.expiry.Stop()
	var args []any
	for _, g := range s.grants {
		args = append(args, g.id, 0)
		g.end(ErrClosed)
	}
	for id := range s.pending {
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
	err = errors.Join(err, s.ps.Close())
	s.wg.Wait()
	return err
}
