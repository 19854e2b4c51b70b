// Package etcdsem is a distributed, weighted, FIFO semaphore kept in etcd and
// shared by any number of processes. It keeps the semacat contract
// (github.com/semacat/sem) and survives crashed holders through leases.
//
// # Design
//
// A semaphore is a name. Under its key prefix live one key that records the
// size, and a queue: one key per Acquire, written by the Acquire itself.
//
//	<prefix><name>/size          the size, written once by the first New
//	<prefix><name>/q/<lease>-<n> one key per acquisition, value = its weight
//
// Every handle (one [New]) grants one lease and keeps it alive (a
// concurrency.Session); every queue key it writes is attached to that lease.
// If the process dies or loses etcd for longer than the lease's TTL, etcd
// deletes its keys, and their permits come back without anyone's help.
//
// Acquire(n) writes its key and reads the queue in one transaction, so the
// key's create revision is its place in line. The queue is the set of keys
// ordered by create revision, and the rule is:
//
//	a key holds its permits when its weight plus the weights of all keys
//	created before it is at most the size.
//
// The keys that hold are therefore always a prefix of the queue whose weights
// sum to at most the size: never more than size permits are held. Keys only
// ever leave the queue or shrink (never grow, and new keys join at the back),
// so the sum in front of a key only goes down: once a key holds, it holds
// until it is deleted, and admission is first come, first served for any
// weights, with no clock and no counter anybody must update. A waiter that
// does not fit watches the queue from the revision it read and subtracts the
// weights of earlier keys as their deletions arrive; it never polls. When the
// sum fits it holds; no message from the releaser is needed. TryAcquire uses
// the same transaction and, if the key does not fit, deletes it again: it
// fails whenever anyone is ahead, so it never barges past a waiter.
//
// Release(n) deletes keys of this handle, oldest first. When n is not the sum
// of whole keys, the last key touched is rewritten in place with its weight
// reduced: a put to an existing key keeps its create revision, so the key
// keeps its place (and its fencing token) while holding less. Any n up to
// the number of permits the handle holds is therefore accepted, whatever
// the weights of the Acquire calls that took them.
//
// Cost: an uncontended Acquire is one round trip, Release one round trip,
// TryAcquire one round trip on success and two on failure. A waiter costs a
// watch (a message on the client's shared watch stream) and receives every
// change to the queue until it is admitted: the price of weighted FIFO with
// no coordinator is that each waiter sees O(queue) events.
//
// # Guarantees and limits
//
// FIFO admission for any weights, no starvation of large requests and no
// barging are structural: they follow from the rule above and from etcd's
// linearizable revisions, not from timing.
//
// A holder is a lease, not a process that can prove it is alive: a process
// paused (GC, swap, a stopped VM) for longer than the TTL can resume still
// believing it holds permits that etcd already handed to someone else. Use
// [Semaphore.AcquirePermit] and check its fencing token at the protected
// resource when that matters (see [Permit]).
//
// Release has no error in the sem.Semaphore contract. If etcd cannot be
// reached, Release reports the error to the handler set with
// [WithErrorHandler] and keeps retrying in the background until the deletion
// succeeds or the handle is closed; [Semaphore.ReleaseErr] returns the error
// to the caller as well. Either way the permits come back at the latest when
// the lease expires, which happens only if etcd stays unreachable for the
// TTL (and then the whole handle is gone: see [ErrSessionLost]).
package etcdsem

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/semacat/sem/internal/check"
)

const pkg = "etcdsem"

// DefaultPrefix is the key prefix under which semaphores live unless
// [WithPrefix] says otherwise.
const DefaultPrefix = "/semacat/etcdsem/"

// Defaults for [WithTTL] and [WithTimeout].
const (
	DefaultTTL     = 15 * time.Second
	DefaultTimeout = 5 * time.Second
)

var (
	// ErrSizeMismatch is wrapped by the error New returns when the name was
	// already created with another size.
	ErrSizeMismatch = errors.New("etcdsem: semaphore exists with a different size")

	// ErrSessionLost is wrapped by the errors of a handle whose lease expired
	// or was revoked: its keys, held or waiting, are gone, and so are its
	// permits. The handle cannot be used again; create a new one with New.
	ErrSessionLost = errors.New("etcdsem: lease lost; the handle's keys and permits are gone")

	// ErrClosed is returned by the methods of a closed handle.
	ErrClosed = errors.New("etcdsem: semaphore handle is closed")
)

// Option configures a handle made by [New].
type Option func(*options)

type options struct {
	ttl     time.Duration
	timeout time.Duration
	prefix  string
	owner   string
	onError func(error)
}

// WithTTL sets the TTL of the handle's lease: how long after a crash, or
// after losing contact with etcd, its permits come back. It is rounded up to
// whole seconds, and etcd raises it to its own minimum (a few election
// timeouts). The default is [DefaultTTL]. Shorter hands permits of crashed
// holders back sooner; longer tolerates longer pauses and partitions.
func WithTTL(ttl time.Duration) Option {
	return func(o *options) { o.ttl = ttl }
}

// WithTimeout bounds the calls that take no context: New, TryAcquire,
// Release and Close. The default is [DefaultTimeout].
func WithTimeout(d time.Duration) Option {
	return func(o *options) { o.timeout = d }
}

// WithPrefix sets the key prefix under which the semaphore lives. Handles
// share a semaphore when they use the same prefix and name. The default is
// [DefaultPrefix].
func WithPrefix(prefix string) Option {
	return func(o *options) { o.prefix = prefix }
}

// WithOwner stores a label (for example "host:pid") with each of the handle's
// keys, so that tools listing the queue can say who holds what.
func WithOwner(owner string) Option {
	return func(o *options) { o.owner = owner }
}

// WithErrorHandler sets a function that receives the errors of the calls that
// cannot return one: Release, and the background retries of deletions that
// failed. It is called from the goroutine that met the error and must not
// block for long.
func WithErrorHandler(f func(error)) Option {
	return func(o *options) { o.onError = f }
}

// Semaphore is a handle on a semaphore kept in etcd. It implements
// sem.Semaphore; any number of handles, in any number of processes, share a
// semaphore by using the same name. A handle is safe for concurrent use; the
// permits it acquires belong to the handle, and any goroutine may release
// them. Create it with [New] and end it with [Semaphore.Close].
type Semaphore struct {
	cli     *clientv3.Client
	session *concurrency.Session
	lease   clientv3.LeaseID
	name    string
	size    int64
	queue   string // key prefix of the queue
	keyBase string // queue + lease: prefix of this handle's keys
	opts    options
	seq     atomic.Uint64
	// For tests, which must tell when every call has either returned or is
	// parked on a watch that has seen all of this handle's writes.
	busy      atomic.Int64 // calls under way and not parked on a watch
	lastWrite atomic.Int64 // revision of this handle's latest write to the queue

	mu      sync.Mutex
	held    []*entry          // keys holding permits for Acquire/TryAcquire, oldest first
	heldSum int64             // permits held through held
	dirty   map[string]*entry // keys whose weight in etcd must change (0: delete)
	waiting map[*queueState]struct{}
	closed  bool

	writeMu sync.Mutex // serializes flushes, so writes to one key land in order

	janitor  sync.WaitGroup
	retrying bool          // the janitor runs; guarded by mu
	closing  chan struct{} // closed by Close
	closeErr error
	once     sync.Once
}

// entry is one key this handle wrote.
type entry struct {
	key    string
	rev    int64 // create revision: the fencing token
	weight int64 // the weight etcd must record; 0 once it must be deleted
}

// New returns a handle on the semaphore called name, with size permits,
// creating it in etcd if it does not exist. The first New of a name records
// the size; a later New with another size fails with an error wrapping
// [ErrSizeMismatch]. New grants the handle's lease and starts keeping it
// alive; call Close to revoke it.
//
// New panics if size is less than 1. It returns an error if name is empty or
// etcd cannot be reached within the timeout.
func New(cli *clientv3.Client, name string, size int64, opts ...Option) (*Semaphore, error) {
	check.Size(pkg, size)
	o := options{ttl: DefaultTTL, timeout: DefaultTimeout, prefix: DefaultPrefix}
	for _, opt := range opts {
		opt(&o)
	}
	if name == "" {
		return nil, fmt.Errorf("%s: New: empty semaphore name", pkg)
	}
	base := o.prefix + url.PathEscape(name) + "/"
	ctx, cancel := context.WithTimeout(cli.Ctx(), o.timeout)
	defer cancel()
	if err := recordSize(ctx, cli, base+"size", name, size); err != nil {
		return nil, err
	}
	ttl := int64((o.ttl + time.Second - 1) / time.Second)
	grant, err := cli.Grant(ctx, max(ttl, 1))
	if err != nil {
		return nil, fmt.Errorf("%s: New(%q): granting the lease: %w", pkg, name, err)
	}
	session, err := concurrency.NewSession(cli, concurrency.WithLease(grant.ID), concurrency.WithTTL(int(max(ttl, 1))))
	if err != nil {
		_, _ = cli.Revoke(ctx, grant.ID)
		return nil, fmt.Errorf("%s: New(%q): keeping the lease alive: %w", pkg, name, err)
	}
	s := &Semaphore{
		cli:     cli,
		session: session,
		lease:   grant.ID,
		name:    name,
		size:    size,
		queue:   base + "q/",
		opts:    o,
		dirty:   make(map[string]*entry),
		waiting: make(map[*queueState]struct{}),
		closing: make(chan struct{}),
	}
	s.keyBase = fmt.Sprintf("%s%016x-", s.queue, int64(s.lease))
	return s, nil
}

// recordSize writes the size at key unless it is there already, and checks
// it against size otherwise.
func recordSize(ctx context.Context, cli *clientv3.Client, key, name string, size int64) error {
	resp, err := cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, strconv.FormatInt(size, 10))).
		Else(clientv3.OpGet(key)).
		Commit()
	if err != nil {
		return fmt.Errorf("%s: New(%q): recording the size: %w", pkg, name, err)
	}
	if resp.Succeeded {
		return nil
	}
	kvs := resp.Responses[0].GetResponseRange().Kvs
	if len(kvs) == 1 && string(kvs[0].Value) == strconv.FormatInt(size, 10) {
		return nil
	}
	recorded := "unreadable"
	if len(kvs) == 1 {
		recorded = string(kvs[0].Value)
	}
	return fmt.Errorf("%s: New(%q, %d): the semaphore was created with size %s: %w", pkg, name, size, recorded, ErrSizeMismatch)
}

// Name returns the semaphore's name.
func (s *Semaphore) Name() string { return s.name }

// Size returns the total number of permits.
func (s *Semaphore) Size() int64 { return s.size }

// Lease returns the ID of the handle's lease.
func (s *Semaphore) Lease() clientv3.LeaseID { return s.lease }

// Held returns the number of permits this handle holds through Acquire and
// TryAcquire (not counting Permits). It is local and needs no round trip.
func (s *Semaphore) Held() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.heldSum
}

// Available returns the number of permits free across all handles, read from
// etcd in one round trip. It is a snapshot for monitoring and teaching,
// stale as soon as it returns. Unlike the local strategies' Available it
// takes a context and can fail, because it asks the server.
func (s *Semaphore) Available(ctx context.Context) (int64, error) {
	resp, err := s.cli.Get(ctx, s.queue, clientv3.WithPrefix(),
		clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend))
	if err != nil {
		return 0, err
	}
	var sum int64
	for _, kv := range resp.Kvs {
		w := s.weightOf(kv.Value)
		if sum+w > s.size {
			break
		}
		sum += w
	}
	return s.size - sum, nil
}

// Acquire takes n permits, blocking until they are available or ctx is done.
// Requests of any weight, from any handle, are served in the order they
// reached etcd.
//
// On success it returns nil and the handle holds n more permits. If ctx is
// already done it returns ctx.Err() without writing anything; if ctx is done
// while it waits, it deletes its key (so the queue is as if it never came)
// and returns ctx.Err(). If n exceeds the size it returns at once, with no
// round trip, an error wrapping sem.ErrExceedsSize. Other errors are etcd's
// (after retrying unavailable servers until ctx is done), or wrap
// [ErrSessionLost] or [ErrClosed]; the handle holds nothing new after any
// error. It panics if n is negative.
func (s *Semaphore) Acquire(ctx context.Context, n int64) error {
	check.Weight(pkg, "Acquire", n)
	if n == 0 {
		return ctx.Err()
	}
	if n > s.size {
		return check.ExceedsSize(pkg, n, s.size)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	e, err := s.acquire(ctx, n)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.held = append(s.held, e)
	s.heldSum += n
	s.mu.Unlock()
	return nil
}

// TryAcquire takes n permits only if they are free and nobody is queued
// ahead, and reports whether it did. It takes all n or none. It costs one
// round trip when it succeeds and two when it fails (the second deletes the
// key it wrote); it reports false if etcd cannot be reached within the
// timeout. It panics if n is negative.
func (s *Semaphore) TryAcquire(n int64) bool {
	check.Weight(pkg, "TryAcquire", n)
	if n == 0 {
		return true
	}
	if n > s.size {
		return false
	}
	s.busy.Add(1)
	defer s.busy.Add(-1)
	ctx, cancel := s.opCtx()
	defer cancel()
	e, q, err := s.enqueue(ctx, n)
	if err != nil {
		s.report(err)
		return false
	}
	if !q.fits(n, s.size) {
		s.drop(e)
		return false
	}
	s.mu.Lock()
	s.held = append(s.held, e)
	s.heldSum += n
	s.mu.Unlock()
	return true
}

// Release gives back n of the permits the handle holds through Acquire and
// TryAcquire, deleting its oldest keys first and shrinking one key in place
// when n does not end on a key boundary. It panics, before changing
// anything, if n is more than the handle holds.
//
// If etcd cannot be reached within the timeout, Release passes the error to
// the handler set with [WithErrorHandler] and retries in the background
// until it succeeds or the handle is closed; the permits are no longer the
// caller's either way.
func (s *Semaphore) Release(n int64) {
	if err := s.ReleaseErr(n); err != nil {
		s.report(err)
	}
}

// ReleaseErr is Release returning the error of its write to etcd instead of
// only reporting it to the handler. After an error the permits are still
// the handle's no more: the write is retried in the background until it
// succeeds or the handle is closed, and in any case they come back when the
// lease ends.
func (s *Semaphore) ReleaseErr(n int64) error {
	check.Weight(pkg, "Release", n)
	if n == 0 {
		return nil
	}
	s.mu.Lock()
	if n > s.heldSum {
		held := s.heldSum
		s.mu.Unlock()
		check.OverRelease(pkg, n, held)
	}
	s.heldSum -= n
	closed := s.closed
	for n > 0 {
		e := s.held[0]
		take := min(n, e.weight)
		e.weight -= take
		n -= take
		if e.weight == 0 {
			s.held[0] = nil
			s.held = s.held[1:]
		}
		if !closed { // else the revoked lease took the key already
			s.dirty[e.key] = e
		}
	}
	s.mu.Unlock()
	return s.sync()
}

// Close revokes the handle's lease, which deletes all its keys: permits it
// holds are given back and its waiting Acquire calls fail with ErrClosed.
// It stops the background retries and the lease's keep-alive. Close returns
// the error of the revocation, if any (the permits then come back when the
// lease expires); calls after the first return the same error. After Close,
// Acquire fails with ErrClosed, TryAcquire reports false, and Release of
// permits acquired before only updates the handle's count, since the lease
// already gave them back.
func (s *Semaphore) Close() error {
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		clear(s.dirty)
		s.mu.Unlock()
		close(s.closing)
		s.janitor.Wait()
		s.session.Orphan()
		ctx, cancel := s.opCtx()
		defer cancel()
		if _, err := s.cli.Revoke(ctx, s.lease); err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
			s.closeErr = fmt.Errorf("%s: Close: revoking lease %x: %w", pkg, int64(s.lease), err)
		}
	})
	return s.closeErr
}

// acquire writes a key of weight n and waits until it holds.
func (s *Semaphore) acquire(ctx context.Context, n int64) (*entry, error) {
	s.busy.Add(1)
	defer s.busy.Add(-1)
	e, q, err := s.enqueue(ctx, n)
	if err != nil {
		return nil, err
	}
	if q.fits(n, s.size) {
		return e, nil
	}
	if err := s.wait(ctx, e, q); err != nil {
		s.drop(e)
		return nil, err
	}
	return e, nil
}

// queueState is what a key's waiter knows of the keys created before it.
type queueState struct {
	ahead map[string]int64 // key -> weight
	sum   int64            // sum of ahead's weights
	rev   int64            // the revision at which this was true

	ctx  context.Context // the waiting call's, for tests
	seen atomic.Int64    // rev, for tests
}

func (q *queueState) fits(n, size int64) bool { return q.sum+n <= size }

// enqueue writes a new key of weight n, attached to the lease, and reads
// the queue ahead of it in the same transaction. The transaction only puts
// the key if it does not exist yet, so it is retried safely when its
// outcome is unknown (an unavailable server, a leader election).
func (s *Semaphore) enqueue(ctx context.Context, n int64) (e *entry, q *queueState, err error) {
	if err := s.usable(); err != nil {
		return nil, nil, err
	}
	e = &entry{key: s.keyBase + strconv.FormatUint(s.seq.Add(1), 10), weight: n}
	put := clientv3.OpPut(e.key, s.value(n), clientv3.WithLease(s.lease))
	read := clientv3.OpGet(s.queue, clientv3.WithPrefix())
	for attempt := 0; ; attempt++ {
		resp, err := s.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(e.key), "=", 0)).
			Then(put, read).
			Else(read).
			Commit()
		if err == nil {
			if resp.Succeeded {
				s.wrote(resp.Header.Revision)
			}
			kvs := resp.Responses[len(resp.Responses)-1].GetResponseRange().Kvs
			if q, ok := s.queueAhead(e, resp.Header.Revision, kvs); ok {
				return e, q, nil
			}
			// Written by an earlier attempt, then deleted: the lease is gone.
			return nil, nil, s.lostErr()
		}
		if errors.Is(err, rpctypes.ErrLeaseNotFound) {
			return nil, nil, s.lostErr()
		}
		if err = s.backoff(ctx, err, attempt); err != nil {
			// The put may have happened: make sure the key goes.
			s.drop(e)
			return nil, nil, err
		}
	}
}

// queueAhead builds the state of the keys ahead of e from a read of the
// queue at revision rev, and records e's create revision. It reports false
// if e is not in the read.
func (s *Semaphore) queueAhead(e *entry, rev int64, kvs []*mvccpb.KeyValue) (*queueState, bool) {
	q := &queueState{ahead: make(map[string]int64, len(kvs)), rev: rev}
	for _, kv := range kvs {
		if string(kv.Key) == e.key {
			e.rev = kv.CreateRevision
		}
	}
	if e.rev == 0 {
		return nil, false
	}
	for _, kv := range kvs {
		if kv.CreateRevision < e.rev {
			w := s.weightOf(kv.Value)
			q.ahead[string(kv.Key)] = w
			q.sum += w
		}
	}
	return q, true
}

// wait watches the queue from q.rev until the keys ahead of e leave room for
// e's weight. After a watch fails (compaction, a member without a leader) it
// reads the queue again and watches from there.
func (s *Semaphore) wait(ctx context.Context, e *entry, q *queueState) error {
	q.ctx = ctx
	q.seen.Store(q.rev)
	s.mu.Lock()
	s.waiting[q] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.waiting, q)
		s.mu.Unlock()
	}()
	for attempt := 0; ; {
		done, err := s.watch(ctx, e, q)
		if done || err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		resp, err := s.cli.Get(ctx, s.queue, clientv3.WithPrefix(), clientv3.WithMaxCreateRev(e.rev))
		if err != nil {
			if err = s.backoff(ctx, err, attempt); err != nil {
				return err
			}
			attempt++
			continue
		}
		attempt = 0
		nq, ok := s.queueAhead(e, resp.Header.Revision, resp.Kvs)
		if !ok {
			return s.lostErr()
		}
		q.ahead, q.sum, q.rev = nq.ahead, nq.sum, nq.rev
		q.seen.Store(q.rev)
		if q.fits(e.weight, s.size) {
			return nil
		}
	}
}

// watch applies the queue's changes after q.rev to q until e fits (done),
// e's key disappears or the session ends (an error), or the watch ends
// (neither: the caller reads the queue again).
func (s *Semaphore) watch(ctx context.Context, e *entry, q *queueState) (done bool, err error) {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	wch := s.cli.Watch(wctx, s.queue, clientv3.WithPrefix(), clientv3.WithRev(q.rev+1))
	for {
		var wr clientv3.WatchResponse
		var ok bool
		s.busy.Add(-1)
		select {
		case wr, ok = <-wch:
		case <-s.session.Done():
		case <-s.closing:
		}
		s.busy.Add(1)
		select {
		case <-s.session.Done():
			return false, s.lostErr()
		case <-s.closing:
			return false, ErrClosed
		default:
		}
		if !ok || wr.Canceled || wr.Err() != nil {
			return false, nil
		}
		for _, ev := range wr.Events {
			k := string(ev.Kv.Key)
			if k == e.key {
				if ev.Type == mvccpb.DELETE {
					return false, s.lostErr()
				}
				continue
			}
			w, ahead := q.ahead[k]
			if !ahead {
				continue // created after e
			}
			if ev.Type == mvccpb.DELETE {
				delete(q.ahead, k)
				q.sum -= w
			} else {
				nw := s.weightOf(ev.Kv.Value)
				q.ahead[k] = nw
				q.sum += nw - w
			}
		}
		q.rev = wr.Header.Revision
		q.seen.Store(q.rev)
		if q.fits(e.weight, s.size) {
			return true, nil
		}
	}
}

// drop deletes e's key, which holds nothing the caller keeps: a waiter that
// gave up, a TryAcquire that did not fit, a write whose outcome is unknown.
func (s *Semaphore) drop(e *entry) {
	s.mu.Lock()
	e.weight = 0
	if !s.closed {
		s.dirty[e.key] = e
	}
	s.mu.Unlock()
	if err := s.sync(); err != nil {
		s.report(err)
	}
}

// sync writes every pending change of the handle's keys to etcd: deletes
// keys whose weight dropped to 0 and rewrites those that shrank, in place
// and only if they still exist (a put to a key etcd already deleted would
// put it at the back of the queue, holding nothing yet believed held).
// Flushes are serialized, so concurrent releases share one round trip and
// writes to one key land in the order they were decided. On failure the
// changes stay pending and the background janitor retries them.
func (s *Semaphore) sync() error {
	s.busy.Add(1)
	defer s.busy.Add(-1)
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	type change struct {
		e      *entry
		weight int64
	}
	s.mu.Lock()
	changes := make([]change, 0, len(s.dirty))
	for _, e := range s.dirty {
		changes = append(changes, change{e, e.weight})
	}
	s.mu.Unlock()
	if len(changes) == 0 {
		return nil
	}
	ctx, cancel := s.opCtx()
	defer cancel()
	const maxOps = 64 // well under etcd's default --max-txn-ops of 128
	var firstErr error
	for len(changes) > 0 {
		batch := changes[:min(maxOps, len(changes))]
		changes = changes[len(batch):]
		ops := make([]clientv3.Op, len(batch))
		for i, c := range batch {
			if c.weight == 0 {
				ops[i] = clientv3.OpDelete(c.e.key)
				continue
			}
			ops[i] = clientv3.OpTxn(
				[]clientv3.Cmp{clientv3.Compare(clientv3.CreateRevision(c.e.key), "=", c.e.rev)},
				[]clientv3.Op{clientv3.OpPut(c.e.key, s.value(c.weight), clientv3.WithLease(s.lease))},
				nil)
		}
		var err error
		for attempt := 0; ; attempt++ {
			if err = s.write(ctx, ops); err == nil {
				break
			}
			if err = s.backoff(ctx, err, attempt); err != nil {
				break
			}
		}
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("%s: releasing %d keys: %w", pkg, len(batch), err)
			}
			continue
		}
		s.mu.Lock()
		for _, c := range batch {
			if s.dirty[c.e.key] == c.e && c.e.weight == c.weight {
				delete(s.dirty, c.e.key)
			}
		}
		s.mu.Unlock()
	}
	if firstErr != nil {
		s.startJanitor()
	}
	return firstErr
}

// write sends ops to etcd at once: as a bare request when there is one
// (the common Release of one key is then a plain delete, as cheap as
// concurrency.Mutex's Unlock), in a transaction otherwise.
func (s *Semaphore) write(ctx context.Context, ops []clientv3.Op) error {
	if len(ops) == 1 && ops[0].IsDelete() {
		resp, err := s.cli.Delete(ctx, string(ops[0].KeyBytes()))
		if err == nil && resp.Deleted > 0 {
			s.wrote(resp.Header.Revision)
		}
		return err
	}
	resp, err := s.cli.Txn(ctx).Then(ops...).Commit()
	if err == nil {
		s.noteWrites(resp)
	}
	return err
}

// noteWrites records the revision of a flush that changed the queue.
func (s *Semaphore) noteWrites(resp *clientv3.TxnResponse) {
	for _, r := range resp.Responses {
		if d := r.GetResponseDeleteRange(); d != nil && d.Deleted > 0 {
			s.wrote(resp.Header.Revision)
			return
		}
		if t := r.GetResponseTxn(); t != nil && t.Succeeded {
			s.wrote(resp.Header.Revision)
			return
		}
	}
}

// wrote records that this handle changed the queue at revision rev.
func (s *Semaphore) wrote(rev int64) {
	for {
		last := s.lastWrite.Load()
		if rev <= last || s.lastWrite.CompareAndSwap(last, rev) {
			return
		}
	}
}

// startJanitor starts the goroutine that retries pending writes, unless it
// runs already or the handle is closed.
func (s *Semaphore) startJanitor() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.retrying || s.closed {
		return
	}
	s.retrying = true
	s.janitor.Add(1)
	go s.retry()
}

// retry flushes pending writes with growing pauses until none are left or
// the handle is closed. Close revokes the lease, which deletes every key,
// so nothing is left behind either way.
func (s *Semaphore) retry() {
	defer s.janitor.Done()
	pause := 100 * time.Millisecond
	for {
		t := time.NewTimer(pause)
		select {
		case <-s.closing:
			t.Stop()
			return
		case <-t.C:
		}
		err := s.sync()
		s.mu.Lock()
		if len(s.dirty) == 0 || s.closed {
			s.retrying = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		if err != nil {
			s.report(err)
		}
		pause = min(2*pause, 2*time.Second)
	}
}

// backoff returns nil after a pause if err is worth retrying (the server is
// unavailable or has no leader) and ctx has time left, and the error to
// return otherwise.
func (s *Semaphore) backoff(ctx context.Context, err error, attempt int) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if !retryable(err) {
		return err
	}
	select {
	case <-s.session.Done():
		return s.lostErr()
	default:
	}
	t := time.NewTimer(min(time.Duration(attempt+1)*50*time.Millisecond, time.Second))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-s.closing:
		return ErrClosed
	case <-t.C:
		return nil
	}
}

// retryable reports whether err says the request may succeed if sent
// again: the member is unavailable, has no leader, or timed out waiting for
// one.
func retryable(err error) bool {
	var ee rpctypes.EtcdError
	if errors.As(err, &ee) {
		return ee.Code() == codes.Unavailable
	}
	return status.Code(err) == codes.Unavailable
}

// usable returns an error if the handle is closed or its lease is gone.
func (s *Semaphore) usable() error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return ErrClosed
	}
	select {
	case <-s.session.Done():
		return s.lostErr()
	default:
		return nil
	}
}

// lostErr is the error of a handle whose lease is gone, or ErrClosed if
// Close is what took it.
func (s *Semaphore) lostErr() error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return ErrClosed
	}
	return fmt.Errorf("%s: semaphore %q, lease %x: %w", pkg, s.name, int64(s.lease), ErrSessionLost)
}

// opCtx bounds a call that takes no context.
func (s *Semaphore) opCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.cli.Ctx(), s.opts.timeout)
}

// report passes err to the error handler, if there is one.
func (s *Semaphore) report(err error) {
	if s.opts.onError != nil && err != nil {
		s.opts.onError(err)
	}
}

// value is what a key of weight w records.
func (s *Semaphore) value(w int64) string {
	v := strconv.FormatInt(w, 10)
	if s.opts.owner != "" {
		v += " " + s.opts.owner
	}
	return v
}

// weightOf parses a key's value. A value that is not a weight between 1 and
// the size (a key someone else wrote under the prefix) counts as the whole
// size: it blocks the queue rather than let anyone in unaccounted.
func (s *Semaphore) weightOf(v []byte) int64 {
	ws, _, _ := strings.Cut(string(v), " ")
	w, err := strconv.ParseInt(ws, 10, 64)
	if err != nil || w < 1 || w > s.size {
		return s.size
	}
	return w
}
