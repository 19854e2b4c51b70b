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
// Every handle (one [New]) grants one lease and keeps it alive; every queue
// key it writes is attached to that lease. If the process dies or loses
// etcd for longer than the lease's TTL, etcd deletes its keys, and their
// permits come back without anyone's help. The <n> in a key's name is a
// request id, never reused by the handle: it tells the keys the handle
// tracks from keys it no longer knows of (see below).
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
// weights of earlier keys as their deletions arrive; it never polls. When
// the watch says the sum fits, the waiter reads its place once more (its own
// key with its create revision, and the keys before it) and reports the
// grant only if that read agrees: a watch event may be stale, and the key
// may have gone with an expired lease meanwhile (the check etcd's own Mutex
// makes after waiting). TryAcquire uses the same transaction and, if the key
// does not fit, deletes it again: it fails whenever anyone is ahead, so it
// never barges past a waiter.
//
// Release(n) deletes keys of this handle, oldest first. When n is not the sum
// of whole keys, the last key touched is rewritten in place with its weight
// reduced: a put to an existing key keeps its create revision, so the key
// keeps its place (and its fencing token) while holding less. Any n up to
// the number of permits the handle holds is therefore accepted, whatever
// the weights of the Acquire calls that took them.
//
// A write whose outcome is unknown (a timeout, a lost connection) may still
// land later, even after the delete meant to undo it. Such a key would hold
// permits on the handle's lease, tracked by nobody, until Close. So after
// an unknown outcome the handle sweeps its own keys at every keep-alive for
// a while (sweepWindow), deleting those it does not track, and it sweeps
// once every sweepEvery keep-alives in any case.
//
// Cost: an uncontended Acquire is one round trip, Release one round trip,
// TryAcquire one round trip on success and two on failure. An Acquire that
// waits costs one more round trip, its re-read, per time a watch says it
// fits; etcd's Mutex, which makes the same check, reads more than once
// while it waits. A waiter costs a
// watch (a message on the client's shared watch stream) and receives every
// change to the queue until it is admitted: the price of weighted FIFO with
// no coordinator is that each waiter sees O(queue) events.
// BenchmarkLock counts the round trips of both.
//
// # Guarantees and limits
//
// FIFO admission for any weights, no starvation of large requests and no
// barging are structural: they follow from the rule above and from etcd's
// linearizable revisions, not from timing.
//
// A holder is a lease, not a process that can prove it is alive. The handle
// trusts its lease only until a safety margin before the earliest moment
// the server could expire it, counted from when the last confirmed
// keep-alive was sent; then [Permit.Done] closes and every call fails with
// [ErrLeaseLost]. A holder that checks Done before acting is told in time
// when it is cut off from etcd; a holder paused (GC, swap, a stopped VM)
// between its check and its act is not, and can act after etcd handed its
// permits to someone else. Use the fencing token of [Semaphore.AcquirePermit]
// at the protected resource when that matters (see [Permit]).
//
// Release has no error in the sem.Semaphore contract. If etcd cannot be
// reached, Release reports the error to the handler set with
// [WithErrorHandler] and keeps retrying in the background until the deletion
// succeeds or the handle is closed; [Semaphore.ReleaseErr] returns the error
// to the caller as well. Either way the permits come back at the latest when
// the lease expires, which happens only if etcd stays unreachable for the
// TTL (and then the whole handle is gone: see [ErrLeaseLost]). Releasing a
// grant whose key is already gone never reports success: it returns, or
// reports, an error wrapping ErrLeaseLost.
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

	"github.com/semacat/sem"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/semacat/sem/internal/check"
)

const pkg = "etcdsem"

var (
	// ErrLeaseLost is wrapped by the errors of a handle whose lease expired,
	// was revoked, or can no longer be trusted to be alive (see
	// [Permit.Done]): its keys, held or waiting, may be gone, and others may
	// hold its permits now. The handle cannot be used again; Close it and
	// create a new one with New.
	ErrLeaseLost = errors.New("etcdsem: lease lost: the handle's keys may be gone and its permits held by others")

	// ErrSizeMismatch is wrapped by the error New returns when the name was
	// already created with another size.
	ErrSizeMismatch = errors.New("etcdsem: semaphore exists with a different size")

	// ErrClosed is returned by the methods of a closed handle. It wraps [sem.ErrClosed], so code written
	// against the sem interfaces can test for it with errors.Is.
	ErrClosed = fmt.Errorf("etcdsem: semaphore handle is closed: %w", sem.ErrClosed)

	// ErrUnavailable is wrapped by the errors of round trips to etcd that
	// failed or timed out; the original error is wrapped too.
	ErrUnavailable = errors.New("etcdsem: server unreachable")
)

// Semaphore is a handle on a semaphore kept in etcd. It implements
// sem.Semaphore; any number of handles, in any number of processes, share a
// semaphore by using the same name. A handle is safe for concurrent use; the
// permits it acquires belong to the handle, and any goroutine may release
// them. Create it with [New] and end it with [Semaphore.Close].
type Semaphore struct {
	cli     *clientv3.Client
	lease   *lease
	name    string
	size    int64
	queue   string // key prefix of the queue
	keyBase string // queue + lease: prefix of this handle's keys
	opts    options
	seq     atomic.Uint64
	hook    *testHook // nil but in the package's tests

	mu         sync.Mutex
	keys       map[string]*entry // every key written and not known deleted
	held       []*entry          // keys holding permits for Acquire/TryAcquire, oldest first
	heldSum    int64             // permits held through held
	dirty      map[string]*entry // keys whose weight in etcd must change (0: delete)
	sweepUntil time.Time         // sweep at every keep-alive until then
	retrying   bool              // the janitor runs
	closed     bool

	writeMu    sync.Mutex     // serializes flushes, so writes to one key land in order
	background sync.WaitGroup // the keep-alive loop and the janitor
}

// entry is one key this handle wrote.
type entry struct {
	key    string
	rev    int64 // create revision: the fencing token
	weight int64 // the weight etcd must record; 0 once it must be deleted
	unsure bool  // a delete of the key had an unknown outcome
	gone   bool  // a write found the key deleted by someone else
}

// New returns a handle on the semaphore called name, with size permits,
// creating it in etcd if it does not exist. The first New of a name records
// the size; a later New with another size fails with an error wrapping
// [ErrSizeMismatch]. New grants the handle's lease and starts keeping it
// alive; call Close to revoke it.
//
// New panics if size is less than 1. It returns an error if name is empty,
// or one wrapping [ErrUnavailable] if etcd cannot be reached within the
// timeout.
func New(cli *clientv3.Client, name string, size int64, opts ...Option) (*Semaphore, error) {
	check.Size(pkg, size)
	o := defaultOptions()
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
	ttl := max(int64((o.lease+time.Second-1)/time.Second), 1)
	sent := time.Now()
	grant, err := cli.Grant(ctx, ttl)
	if err != nil {
		return nil, roundTripErr(fmt.Sprintf("New(%q): granting the lease", name), err)
	}
	s := &Semaphore{
		cli:   cli,
		name:  name,
		size:  size,
		queue: base + "q/",
		opts:  o,
		hook:  hookForNewHandle(),
		keys:  make(map[string]*entry),
		dirty: make(map[string]*entry),
	}
	s.keyBase = fmt.Sprintf("%s%016x-", s.queue, int64(grant.ID))
	granted := time.Duration(grant.TTL) * time.Second
	s.lease = newLease(cli.Ctx(), grant.ID, granted, sent,
		leaseLost(name, grant.ID, "no keep-alive was confirmed in time; the server may have expired the lease"))
	s.background.Add(1)
	go s.keepAlive()
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
		return roundTripErr(fmt.Sprintf("New(%q): recording the size", name), err)
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
func (s *Semaphore) Lease() clientv3.LeaseID { return s.lease.id }

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
// takes a context and can fail, because it asks the server: on error the
// count is meaningless and the error wraps [ErrUnavailable] (or is ctx's).
func (s *Semaphore) Available(ctx context.Context) (int64, error) {
	resp, err := s.cli.Get(ctx, s.queue, clientv3.WithPrefix(),
		clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend))
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, roundTripErr(fmt.Sprintf("Available on %q", s.name), err)
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

// Close revokes the handle's lease, which deletes all its keys: permits it
// holds are given back and its waiting Acquire calls fail with ErrClosed;
// the Done channels of its Permits close. It stops the background retries
// and the lease's keep-alive. Close returns the error of the revocation, if
// any (the permits then come back when the lease expires); calls after the
// first return nil. After Close, Acquire fails with ErrClosed, TryAcquire
// reports false, and Release of permits acquired before only updates the
// handle's count (ReleaseErr returns ErrClosed), since the lease already
// gave them back.
func (s *Semaphore) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	clear(s.dirty)
	s.mu.Unlock()
	s.lease.end(ErrClosed)
	s.background.Wait()
	ctx, cancel := s.opCtx()
	defer cancel()
	if _, err := s.cli.Revoke(ctx, s.lease.id); err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return roundTripErr(fmt.Sprintf("Close: revoking lease %x", int64(s.lease.id)), err)
	}
	return nil
}

// usable returns an error if the handle is closed or its lease is not to
// be trusted.
func (s *Semaphore) usable() error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return ErrClosed
	}
	return s.lease.err()
}

// leaseLost is the error of a handle whose lease is gone, for the reason
// why.
func leaseLost(name string, id clientv3.LeaseID, why string) error {
	return fmt.Errorf("%s: semaphore %q, lease %x: %s: %w", pkg, name, int64(id), why, ErrLeaseLost)
}

// leaseGone ends the handle's trust in its lease because the server said
// it does not know it, and returns the error of that.
func (s *Semaphore) leaseGone() error {
	s.lease.end(leaseLost(s.name, s.lease.id, "the server no longer knows the lease"))
	if err := s.usable(); err != nil {
		return err
	}
	return s.lease.err()
}

// roundTripErr says what failed. Errors of the connection, or of a request
// that timed out, wrap ErrUnavailable as well as the cause.
func roundTripErr(what string, err error) error {
	if retryable(err) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return fmt.Errorf("%s: %s: %w: %w", pkg, what, ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %s: %w", pkg, what, err)
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

// backoff returns nil after a pause if err is worth retrying (the server is
// unavailable or has no leader) and ctx has time left, and the error to
// return otherwise: ctx's own, or err wrapped as what failed.
func (s *Semaphore) backoff(ctx context.Context, what string, err error, attempt int) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if !retryable(err) {
		return roundTripErr(what, err)
	}
	if err := s.usable(); err != nil {
		return err
	}
	t := time.NewTimer(min(time.Duration(attempt+1)*50*time.Millisecond, time.Second))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-s.lease.dead:
		return s.usable()
	case <-t.C:
		return nil
	}
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
