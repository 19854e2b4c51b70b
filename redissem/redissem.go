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
// admit anyone. The client's clock only paces its own timers.
//
// A request takes a ticket from a counter kept on the server. If nobody
// is queued and its weight fits, it is granted at once under that ticket;
// otherwise it joins a queue ordered by ticket. Waiters are admitted strictly
// in ticket order: the head is granted as soon as it fits, and a head that
// does not fit blocks everyone behind it, so admission is FIFO for any mix of
// weights, a large request is never starved, and TryAcquire never barges past
// a queued waiter. Admission happens inside whichever script makes room (a
// release, a withdrawal, or the reaping of an expired holder), which records
// the grant and publishes it on the waiter's handle channel (pub/sub).
//
// Every grant is a lease in server time. While a handle holds permits, a
// background goroutine refreshes all of its grants in one script every third
// of the lease. A holder whose process dies stops refreshing, and the next
// script that runs after its lease passes reaps it and admits the waiters that
// now fit. A waiter's queue entry is a lease too: the waiter pushes it back
// each time it polls, so the entry of a dead waiter expires and stops
// blocking the queue. Polling is only the fallback, with a backoff from 50ms
// up to a third of the lease (at most one second): it catches a notification
// lost while the pub/sub connection was down and a holder that expired
// silently. A waiter whose context is done withdraws its entry (or gives back
// a grant that raced with the cancellation), and those behind it are admitted
// if they now fit, so a canceled Acquire leaves the semaphore as if it never
// happened.
//
// Each grant carries its ticket as a fencing token ([Semaphore.AcquireToken]).
// Grants happen in ticket order, so tokens strictly increase in grant order;
// if Redis loses its data, the counter restarts at the server's time in
// microseconds, above every earlier token as long as the server's clock does
// not step back.
//
// Every script is idempotent in its request id (a client-generated
// "<handle>/<seq>"), so go-redis may retry a script whose reply was lost
// without taking permits twice; a release sets a grant's count to the value
// the client still holds, only ever downwards, so releases and refreshes
// commute.
//
// # What Redis cannot promise
//
// Redis replicates asynchronously. If the primary fails after granting
// permits and before a replica received the grant, the promoted replica does
// not know it, and admits others: more than size may hold at once. WAIT and
// Redis Cluster do not close that window, and neither does Redlock against
// a paused process. A process paused longer than its lease (a stop-the-world
// pause, a suspended VM, a long page-fault storm) loses its grant while it
// still believes it holds it. Use the fencing token where the protected
// resource can check it, and choose etcdsem, whose grants are committed by a
// Raft majority before they are reported, when exceeding the limit is a
// correctness bug rather than a brief overload.
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
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/semacat/sem/internal/check"
)

const pkg = "redissem"

// ErrClosed is returned by Acquire on a Semaphore that was closed, and by
// waiting Acquires when Close is called.
var ErrClosed = errors.New("redissem: semaphore handle closed")

// ErrUnavailable is wrapped by the errors of operations that could not
// complete a round trip to Redis: the connection failed, or no reply came
// within the handle's timeout (see WithTimeout). Whether Redis executed the
// operation is then unknown; redissem undoes or retries it as each method
// documents.
var ErrUnavailable = errors.New("redis unreachable")

// ErrLeaseLost is reported to the error handler when Redis no longer knows a
// grant this handle holds: its lease expired before a refresh reached Redis,
// or Redis lost its data. Other clients may hold those permits now.
var ErrLeaseLost = errors.New("redissem: lease lost")

// Default option values.
const (
	DefaultLease   = 10 * time.Second
	DefaultTimeout = 5 * time.Second
)

// Option configures a Semaphore handle.
type Option func(*options)

type options struct {
	lease   time.Duration
	timeout time.Duration
	pollMax time.Duration
	onError func(error)
}

// WithLease sets how long a grant, and a waiter's place in the queue, stays
// valid without a refresh (default 10s). It bounds how long the permits of a
// dead process stay taken. Refreshes run every third of it. It panics if d is
// below 30ms.
func WithLease(d time.Duration) Option {
	if d < 30*time.Millisecond {
		panic(fmt.Sprintf("%s: WithLease(%v): the lease must be at least 30ms", pkg, d))
	}
	return func(o *options) { o.lease = d }
}

// WithTimeout bounds each round trip the handle makes on its own behalf:
// TryAcquire, Release, refreshes, withdrawals (default 5s). Acquire's first
// round trip is bounded by it too, and then by ctx. It panics if d is not
// positive.
func WithTimeout(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("%s: WithTimeout(%v): the timeout must be positive", pkg, d))
	}
	return func(o *options) { o.timeout = d }
}

// WithPollInterval caps the interval of the fallback polling of a waiting
// Acquire (default: a third of the lease, at most 1s). It is clamped to a
// third of the lease, because each poll also keeps the waiter's queue entry
// alive.
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

// Semaphore is one process's handle on a semaphore stored in Redis under a
// name. All handles on the same name share its permits. A handle is safe for
// concurrent use; the permits its callers hold are counted per handle, so a
// Release must go through the handle that acquired.
type Semaphore struct {
	rdb     redis.UniversalClient
	name    string
	size    int64
	keys    []string
	base    []any  // ARGV[1:2] of every script: size, channel prefix
	handle  string // random id of this handle
	lease   time.Duration
	ttlMs   string // lease in ms, for grants and queue entries alike
	timeout time.Duration
	pollMin time.Duration
	pollMax time.Duration
	onError func(error)

	ps   *redis.PubSub
	done chan struct{} // closed by Close
	kick chan struct{} // a release or withdrawal awaits a retry
	wg   sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	seq     uint64
	held    int64                  // permits the callers hold through this handle
	grants  []*grant               // grants behind held, oldest first
	pending map[string]struct{}    // releases and withdrawals that have not reached Redis yet
	waiters map[string]chan string // queued request id -> its grant's ticket
}

// grant is one admitted request, as this handle holds it.
type grant struct {
	id    string
	n     int64 // permits still held under it
	token int64
	lost  bool // Redis reported it gone; no longer refreshed
}

// New returns a handle on the semaphore called name with size permits,
// creating it in Redis if it does not exist. It fails if the name already
// holds a semaphore of another size, or if Redis cannot be reached. It panics
// if size is less than 1.
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
		o.pollMax = min(o.lease/3, time.Second)
	}
	handle := newHandleID()
	prefix := "redissem:{" + name + "}:"
	s := &Semaphore{
		rdb:  rdb,
		name: name,
		size: size,
		keys: []string{prefix + "meta", prefix + "holders", prefix + "recs",
			prefix + "queue", prefix + "wexp"},
		base:    []any{size, prefix + "wake:"},
		handle:  handle,
		lease:   o.lease,
		ttlMs:   strconv.FormatInt(o.lease.Milliseconds(), 10),
		timeout: o.timeout,
		pollMin: min(50*time.Millisecond, o.pollMax),
		pollMax: o.pollMax,
		onError: o.onError,
		done:    make(chan struct{}),
		kick:    make(chan struct{}, 1),
		pending: make(map[string]struct{}),
		waiters: make(map[string]chan string),
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	if _, err := s.run(ctx, infoScript); err != nil {
		return nil, s.newError(err)
	}
	s.ps = rdb.Subscribe(ctx, prefix+"wake:"+handle)
	if _, err := s.ps.Receive(ctx); err != nil {
		_ = s.ps.Close()
		return nil, s.newError(err)
	}
	s.wg.Add(2)
	go s.dispatch(s.ps.Channel())
	go s.refresher()
	return s, nil
}

func (s *Semaphore) newError(err error) error {
	if se := (*sizeError)(nil); errors.As(err, &se) {
		return fmt.Errorf("%s: New(%q, %d): a semaphore of size %d already exists under this name", pkg, s.name, s.size, se.size)
	}
	return fmt.Errorf("%s: New(%q, %d): %w", pkg, s.name, s.size, err)
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
// teaching, stale as soon as it returns. It costs a round trip; if Redis
// cannot be reached it returns 0 and reports the error to the error handler.
func (s *Semaphore) Available() int64 {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	v, err := s.run(ctx, infoScript)
	if err != nil {
		s.report(fmt.Errorf("%s: Available on %q: %w", pkg, s.name, err))
		return 0
	}
	return v[0]
}

// Acquire takes n permits, blocking until they are granted or ctx is done.
// Requests of any weight are granted in arrival order, as the Redis server
// sees it. See AcquireToken for its behaviour on cancellation and error.
func (s *Semaphore) Acquire(ctx context.Context, n int64) error {
	_, err := s.acquire(ctx, "Acquire", n)
	return err
}

// AcquireToken is Acquire that also returns the grant's fencing token: a
// number that strictly increases with each grant on this semaphore, for a
// protected resource to reject work from a holder whose grant was superseded
// (with size 1, reject any token below the highest seen).
//
// On success it returns the token, and the caller holds n permits, leased and
// refreshed in the background until released. If ctx is already done it
// returns ctx.Err() without acquiring, even when permits are free; if ctx is
// done while it waits, it withdraws its request (giving back a grant that
// raced with the cancellation) and returns ctx.Err(). If n exceeds the size
// it returns at once, without a round trip, an error wrapping
// sem.ErrExceedsSize. If Redis cannot be reached it returns that error,
// wrapped; a request Redis may have recorded is withdrawn on a best effort
// basis, and otherwise expires within the lease. If the handle is closed it
// returns ErrClosed. AcquireToken(ctx, 0) returns 0, ctx.Err(). It panics if
// n < 0.
func (s *Semaphore) AcquireToken(ctx context.Context, n int64) (int64, error) {
	return s.acquire(ctx, "AcquireToken", n)
}

func (s *Semaphore) acquire(ctx context.Context, method string, n int64) (int64, error) {
	check.Weight(pkg, method, n)
	if n > s.size {
		return 0, check.ExceedsSize(pkg, n, s.size)
	}
	if err := ctx.Err(); err != nil || n == 0 {
		return 0, err
	}
	id, wake, err := s.newWaiter()
	if err != nil {
		return 0, err
	}
	defer s.dropWaiter(id)
	token, err := s.request(ctx, id, n, "wait")
	if err != nil || token > 0 {
		return token, s.acquireError(ctx, id, n, err)
	}
	delay := s.pollMin
	timer := time.NewTimer(delay)
	defer timer.Stop()
	for {
		select {
		case t := <-wake:
			token, err := strconv.ParseInt(t, 10, 64)
			if err == nil {
				if err := s.hold(id, n, token); err != nil {
					return 0, err
				}
				return token, nil
			}
			// A malformed notification: ask the server instead.
			timer.Reset(0)
		case <-timer.C:
			token, err := s.request(ctx, id, n, "wait")
			if err != nil || token > 0 {
				return token, s.acquireError(ctx, id, n, err)
			}
			delay = min(2*delay, s.pollMax)
			timer.Reset(delay)
		case <-ctx.Done():
			s.withdraw(id)
			return 0, ctx.Err()
		case <-s.done:
			s.withdraw(id)
			return 0, ErrClosed
		}
	}
}

// acquireError turns a failed round trip of a request into Acquire's error,
// after withdrawing the request in case Redis recorded it.
func (s *Semaphore) acquireError(ctx context.Context, id string, n int64, err error) error {
	if err == nil {
		return nil
	}
	s.withdraw(id)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("%s: Acquire(%d) on %q: %w", pkg, n, s.name, err)
}

// TryAcquire takes n permits only if it can do so at once, and reports
// whether it did. It takes all n or none, and fails while other requests are
// queued, even if n would fit (it never barges). It costs one round trip,
// bounded by the handle's timeout; if Redis cannot be reached it reports
// false and passes the error to the error handler. TryAcquire(0) reports
// true. It panics if n < 0.
func (s *Semaphore) TryAcquire(n int64) bool {
	check.Weight(pkg, "TryAcquire", n)
	if n > s.size {
		return false
	}
	if n == 0 {
		return true
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	id := s.nextID()
	s.mu.Unlock()
	token, err := s.request(context.Background(), id, n, "try")
	if errors.Is(err, ErrClosed) {
		return false
	}
	if err != nil {
		s.withdraw(id)
		s.report(fmt.Errorf("%s: TryAcquire(%d) on %q: %w", pkg, n, s.name, err))
		return false
	}
	return token > 0
}

// request runs the acquire script for id; it returns the grant's token, or 0
// when the request is queued or refused. A grant is recorded in the handle.
func (s *Semaphore) request(ctx context.Context, id string, n int64, mode string) (int64, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.timeout)
	defer cancel()
	v, err := s.run(ctx, acquireScript, id, n, s.ttlMs, mode, s.ttlMs)
	if err != nil || v[0] != 1 {
		return 0, err
	}
	if err := s.hold(id, n, v[1]); err != nil {
		return 0, err
	}
	return v[1], nil
}

// Release gives back n permits held through this handle, in one round trip
// bounded by the handle's timeout. It panics if that is more than the
// handle's callers hold, before changing anything. If Redis cannot be
// reached, the permits are still dropped from the handle: the handle retries
// the release in the background, they come back when their lease expires at
// the latest, and the error goes to the error handler. Release(0) is a no-op.
func (s *Semaphore) Release(n int64) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	if err := s.release(ctx, "Release", n); err != nil {
		s.report(err)
	}
}

// ReleaseErr is Release that returns the error instead of passing it to the
// error handler: nil when Redis recorded the release, otherwise the failure
// of the round trip (bounded by ctx and the handle's timeout). Either way the
// permits leave the handle at once, as with Release. It panics if n is more
// than the handle's callers hold.
func (s *Semaphore) ReleaseErr(ctx context.Context, n int64) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	return s.release(ctx, "ReleaseErr", n)
}

func (s *Semaphore) release(ctx context.Context, method string, n int64) error {
	check.Weight(pkg, method, n)
	args, ids := s.take(n)
	if len(args) == 0 {
		return nil
	}
	if _, err := s.update(ctx, args); err != nil {
		s.retryLater(ids...)
		return fmt.Errorf("%s: %s(%d) on %q: %w; the handle retries, and the permits return when their lease expires (within %v) at the latest",
			pkg, method, n, s.name, err, s.lease)
	}
	return nil
}

// take removes n permits from the handle's books, newest grants first. It
// returns the update arguments for Redis and the ids of the grants it
// emptied. It panics, before changing anything, if n is more than held.
func (s *Semaphore) take(n int64) (args []any, emptied []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n > s.held {
		check.OverRelease(pkg, n, s.held)
	}
	s.held -= n
	for n > 0 && len(s.grants) > 0 {
		g := s.grants[len(s.grants)-1]
		if g.n > n {
			g.n -= n
			args = append(args, g.id, g.n)
			break
		}
		n -= g.n
		s.grants = s.grants[:len(s.grants)-1]
		args = append(args, g.id, 0)
		emptied = append(emptied, g.id)
	}
	return args, emptied
}

// hold records a grant in the handle's books. If the handle was closed
// meanwhile, it gives the grant back and returns ErrClosed.
func (s *Semaphore) hold(id string, n, token int64) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.withdraw(id)
		return ErrClosed
	}
	defer s.mu.Unlock()
	for _, g := range s.grants {
		if g.id == id {
			return nil // already recorded: both the reply and the notification arrived
		}
	}
	s.held += n
	s.grants = append(s.grants, &grant{id: id, n: n, token: token})
	return nil
}

// newWaiter allocates a request id and the channel its grant notification
// arrives on, before the request reaches Redis, so none is missed.
func (s *Semaphore) newWaiter() (string, chan string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", nil, ErrClosed
	}
	id := s.nextID()
	ch := make(chan string, 1)
	s.waiters[id] = ch
	return id, ch, nil
}

func (s *Semaphore) dropWaiter(id string) {
	s.mu.Lock()
	delete(s.waiters, id)
	s.mu.Unlock()
}

// nextID returns a new request id; s.mu must be held.
func (s *Semaphore) nextID() string {
	s.seq++
	return s.handle + "/" + strconv.FormatUint(s.seq, 10)
}

// withdraw takes a request out of Redis: out of the queue, or out of the
// holders if it was granted meanwhile; those behind it are admitted if they
// now fit. On failure the handle retries in the background, and the entry
// expires within the lease at the latest.
func (s *Semaphore) withdraw(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	if _, err := s.update(ctx, []any{id, 0}); err != nil {
		s.retryLater(id)
		s.report(fmt.Errorf("%s: withdrawing request %s from %q: %w; retrying, and it expires within %v at the latest", pkg, id, s.name, err, s.lease))
	}
}

// retryLater makes the refresher release or withdraw ids until Redis
// confirms it.
func (s *Semaphore) retryLater(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	for _, id := range ids {
		s.pending[id] = struct{}{}
	}
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// dispatch hands grant notifications to the waiting Acquires.
func (s *Semaphore) dispatch(msgs <-chan *redis.Message) {
	defer s.wg.Done()
	for m := range msgs {
		id, token, ok := strings.Cut(m.Payload, " ")
		if !ok {
			continue
		}
		s.mu.Lock()
		ch := s.waiters[id]
		delete(s.waiters, id)
		s.mu.Unlock()
		if ch != nil {
			ch <- token // buffered, and each id is notified once
		}
	}
}

// refresher pushes back the leases of the handle's grants every third of the
// lease, retries releases and withdrawals that did not reach Redis, and
// reports lost leases. While a refresh fails or something waits for a
// retry, it runs every twelfth of the lease instead.
func (s *Semaphore) refresher() {
	defer s.wg.Done()
	retry := s.lease / 12
	t := time.NewTimer(s.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-s.kick:
			t.Reset(retry)
			continue
		case <-t.C:
		}
		next := s.lease / 3
		if err := s.refresh(); err != nil {
			s.report(fmt.Errorf("%s: refreshing leases on %q: %w", pkg, s.name, err))
			next = retry
		}
		s.mu.Lock()
		if len(s.pending) > 0 {
			next = retry
		}
		s.mu.Unlock()
		t.Reset(next)
	}
}

// refresh runs one update of every grant the handle holds and every release
// or withdrawal still pending.
func (s *Semaphore) refresh() error {
	s.mu.Lock()
	var args []any
	for _, g := range s.grants {
		if !g.lost {
			args = append(args, g.id, g.n)
		}
	}
	var sent []string
	for id := range s.pending {
		args = append(args, id, 0)
		sent = append(sent, id)
	}
	s.mu.Unlock()
	if len(args) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	missing, err := s.update(ctx, args)
	if err != nil {
		return err
	}
	s.mu.Lock()
	for _, id := range sent {
		delete(s.pending, id)
	}
	var lost []*grant
	for _, id := range missing {
		for _, g := range s.grants {
			if g.id == id && !g.lost {
				g.lost = true
				lost = append(lost, g)
			}
		}
	}
	s.mu.Unlock()
	for _, g := range lost {
		s.report(fmt.Errorf("%s: %d permits of %q (token %d): %w; other clients may hold them now",
			pkg, g.n, s.name, g.token, ErrLeaseLost))
	}
	return nil
}

// update runs the update script; it returns the ids Redis no longer knows.
func (s *Semaphore) update(ctx context.Context, pairs []any) ([]string, error) {
	args := append(append(make([]any, 0, len(s.base)+1+len(pairs)), s.base...), s.ttlMs)
	args = append(args, pairs...)
	res, err := updateScript.Run(ctx, s.rdb, s.keys, args...).StringSlice()
	return res, s.scriptError(err)
}

// run runs an acquire, cancel or info script and returns its integer reply.
func (s *Semaphore) run(ctx context.Context, script *redis.Script, args ...any) ([]int64, error) {
	args = append(append(make([]any, 0, len(s.base)+len(args)), s.base...), args...)
	v, err := script.Run(ctx, s.rdb, s.keys, args...).Slice()
	if err != nil {
		return nil, s.scriptError(err)
	}
	out := make([]int64, len(v))
	for i, x := range v {
		switch x := x.(type) {
		case int64:
			out[i] = x
		case string:
			if out[i], err = strconv.ParseInt(x, 10, 64); err != nil {
				return nil, fmt.Errorf("unexpected reply %q from script: %w", x, err)
			}
		default:
			return nil, fmt.Errorf("unexpected reply %v from script", v)
		}
	}
	return out, nil
}

// sizeError reports that the semaphore in Redis has another size than the
// handle expects.
type sizeError struct {
	name       string
	size, want int64
}

func (e *sizeError) Error() string {
	return fmt.Sprintf("the semaphore %q in Redis has size %d, this handle expects %d", e.name, e.size, e.want)
}

// scriptError turns the scripts' size error into a sizeError and a failed
// round trip into an error wrapping ErrUnavailable. A timeout is not wrapped
// as context.DeadlineExceeded, which callers take to mean their own ctx.
func (s *Semaphore) scriptError(err error) error {
	if err == nil {
		return nil
	}
	var rerr redis.Error
	if !errors.As(err, &rerr) {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return fmt.Errorf("%w: no reply in time (%v)", ErrUnavailable, err)
		}
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	rest, ok := strings.CutPrefix(err.Error(), "SEMSIZE ")
	if !ok {
		return err
	}
	size, perr := strconv.ParseInt(rest, 10, 64)
	if perr != nil {
		return err
	}
	return &sizeError{name: s.name, size: size, want: s.size}
}

func (s *Semaphore) report(err error) {
	if s.onError != nil {
		s.onError(err)
	}
}

// Close ends the handle: waiting Acquires return ErrClosed after withdrawing,
// the permits its callers still hold are released in Redis (a later Release
// of them only updates the handle's books), and its subscription and lease
// refresher stop. Later Acquires return ErrClosed and TryAcquires false.
// Close returns the error of that final release, if any; the permits then
// come back when their lease expires. Closing twice is a no-op.
func (s *Semaphore) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	var args []any
	for _, g := range s.grants {
		args = append(args, g.id, 0)
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
