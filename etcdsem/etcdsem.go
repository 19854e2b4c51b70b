// Package etcdsem is a weighted semaphore kept in etcd and shared by any
// number of processes, with first-come, first-served admission. It
// implements sem.Semaphore (github.com/semacat/sem), so code written against
// that interface works unchanged when the permits are shared across
// machines.
//
// While etcd keeps its writes:
//
//   - never more than the size permits are held, across all handles;
//   - requests of any weight are admitted in the order they reached etcd:
//     a large request is never starved, and TryAcquire never barges past a
//     waiter;
//   - a holder that crashes, or loses etcd for longer than its lease (see
//     [WithLease]), gives its permits back without anyone's help;
//   - a holder cut off from etcd sees [Permit.Done] close before anyone else
//     can be granted its permits (as long as etcd ends leases only when
//     their TTL runs out, which a paused and resumed etcd leader may not:
//     see [Permit.Done]), and a [Permit]'s fencing token lets the
//     protected resource reject a holder paused past that moment.
//
// Choose it when processes on several machines must share a limit (a
// connection budget, licences, exclusive access to a device), etcd is
// already at hand, and requests differ in size or must be served in order.
// An uncontended Acquire costs one round trip to etcd, and so does Release;
// for goroutines of one process, use one of sem's local strategies.
//
//	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{"localhost:2379"}})
//	if err != nil {
//		return err
//	}
//	defer cli.Close()
//	s, err := etcdsem.New(ctx, cli, "uploads", 4) // the same name in every process
//	if err != nil {
//		return err
//	}
//	defer s.Close()
//	if err := s.Acquire(ctx, 1); err != nil {
//		return err
//	}
//	defer s.Release(1)
//
// A handle holds its keys on one etcd lease, its own or that of a [Session]
// it shares with other handles ([WithSession]); its permits are the
// handle's, and any goroutine may release them. Beyond sem.Semaphore, a handle implements
// sem.Closer, sem.Resizer (the size lives in etcd, and Resize through any
// handle changes it for all) and sem.Observer (Waiting reads the queue in
// etcd). Release cannot return an error in the
// sem.Semaphore contract: errors go to [WithErrorHandler], and
// [Semaphore.ReleaseErr] returns them. How the semaphore is kept in etcd,
// what each call costs, and what it cannot promise (a holder is a lease,
// not a process) are in https://github.com/semacat/sem/blob/main/docs/distributed.md.
//
// # Compaction
//
// Every acquisition writes about two revisions, which etcd keeps until
// they are compacted, and etcd does not compact by default: a busy
// semaphore grows the database toward etcd's space quota, after which
// every write fails. Run etcd with auto-compaction
// (--auto-compaction-mode=periodic --auto-compaction-retention=1h, for
// instance), and defragment now and then; etcdsem reads the queue again
// when a watch finds its revision compacted.
package etcdsem

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/semacat/sem"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const pkg = "etcdsem"

var (
	// ErrLeaseLost is wrapped by the errors of a handle whose lease expired,
	// was revoked, or can no longer be trusted to be alive (see
	// [Permit.Done]): its keys, held or waiting, may be gone, and others may
	// hold its permits now. The handle cannot be used again; Close it and
	// create a new one with New.
	ErrLeaseLost = errors.New("etcdsem: lease lost: the handle's keys may be gone and its permits held by others")

	// ErrSizeMismatch is wrapped by the error New returns when the name
	// exists with another size.
	ErrSizeMismatch = errors.New("etcdsem: semaphore exists with a different size")

	// ErrClosed is returned by the methods of a closed handle. It wraps [sem.ErrClosed], so code written
	// against the sem interfaces can test for it with errors.Is.
	ErrClosed = fmt.Errorf("etcdsem: semaphore handle is closed: %w", sem.ErrClosed)

	// ErrUnavailable is wrapped by the errors of round trips to etcd that
	// failed or timed out; the original error is wrapped too.
	ErrUnavailable = errors.New("etcdsem: server unreachable")
)

// Semaphore is a handle on a semaphore kept in etcd. It implements
// sem.Semaphore, sem.Closer, sem.Resizer and sem.Observer; any number of handles, in any number of processes, share a
// semaphore by using the same name. A handle is safe for concurrent use; the
// permits it acquires belong to the handle, and any goroutine may release
// them. Create it with [New] and end it with [Semaphore.Close].
type Semaphore struct {
	cli     *clientv3.Client
	lease   *lease
	name    string
	sizeKey string
	sizes   *sizes
	queue   string // key prefix of the queue
	keyBase string // queue + lease: prefix of this handle's keys
	opts    options
	seq     atomic.Uint64
	hook    *testHook // nil but in the package's tests
	session *Session
	// ownsSession is set when the handle was made without WithSession:
	// Close then closes its session, revoking the lease.
	ownsSession bool
	onWait      atomic.Pointer[func(sem.WaitEvent)]

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
// the size; a later New with another size than the one recorded (by it or
// by [Semaphore.Resize]) fails with an error wrapping [ErrSizeMismatch].
// New grants the handle's lease and starts keeping it alive, and watches
// the size; call Close to revoke the lease and stop both.
//
// ctx bounds the round trips New makes (recording the size, granting the
// lease), as [WithTimeout] does too; it does not bound the handle's life.
//
// New panics if cli is nil, if name is empty, if size is less than 1, or
// if given a nil option or one it does not use (see [Option]). It returns an error wrapping
// [ErrUnavailable] if etcd cannot be reached in time.
func New(ctx context.Context, cli *clientv3.Client, name string, size int64, opts ...Option) (*Semaphore, error) {
	if cli == nil {
		nilClient(fmt.Sprintf("New(%q)", name))
	}
	checkSize(size)
	if name == "" {
		emptyName()
	}
	var o options
	if o = buildOptions("New", opts); o.session != nil {
		o = buildOptions("New", opts, "WithLease")
	}
	base := o.prefix + url.PathEscape(name) + "/"
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	rec, err := recordSize(ctx, cli, base+"size", name, size)
	if err != nil {
		return nil, err
	}
	s := &Semaphore{
		cli:         cli,
		name:        name,
		sizeKey:     base + "size",
		sizes:       newSizes(rec),
		queue:       base + "q/",
		opts:        o,
		hook:        hookForNewHandle(),
		session:     o.session,
		ownsSession: o.session == nil,
		keys:        make(map[string]*entry),
		dirty:       make(map[string]*entry),
	}
	if s.ownsSession {
		if s.session, err = newSession(ctx, cli, o, s.hook); err != nil {
			return nil, roundTripErr(fmt.Sprintf("New(%q): granting the lease", name), err)
		}
	}
	view, number, err := s.session.join(name)
	if err != nil {
		return nil, err
	}
	s.lease = view
	s.keyBase = fmt.Sprintf("%s%016x-%d-", s.queue, int64(view.id), number)
	s.background.Add(2)
	go s.sweeper()
	go s.watchSize(rec.rev + 1)
	return s, nil
}

// recordSize writes the size at key unless it is there already, and checks
// it against size otherwise. It returns the record in etcd.
func recordSize(ctx context.Context, cli *clientv3.Client, key, name string, size int64) (sizeRecord, error) {
	resp, err := cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, strconv.FormatInt(size, 10))).
		Else(clientv3.OpGet(key)).
		Commit()
	if err != nil {
		return sizeRecord{}, roundTripErr(fmt.Sprintf("New(%q): recording the size", name), err)
	}
	if resp.Succeeded {
		return sizeRecord{size: size, rev: resp.Header.Revision}, nil
	}
	kvs := resp.Responses[0].GetResponseRange().Kvs
	recorded := "unreadable"
	if len(kvs) == 1 {
		rec, ok := parseSize(kvs[0])
		if ok && rec.size == size {
			return rec, nil
		}
		if ok {
			recorded = strconv.FormatInt(rec.size, 10)
		}
	}
	return sizeRecord{}, fmt.Errorf("%s: New(%q, %d): the semaphore has size %s: %w", pkg, name, size, recorded, ErrSizeMismatch)
}

// Name returns the semaphore's name.
func (s *Semaphore) Name() string { return s.name }

// Lease returns the ID of the lease the handle holds its keys on: its
// session's (see [Session]).
func (s *Semaphore) Lease() clientv3.LeaseID { return s.lease.id }

// Held returns the number of permits this handle holds through Acquire and
// TryAcquire (not counting Permits). It is local and needs no round trip.
func (s *Semaphore) Held() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.heldSum
}

// Available returns the number of permits free across all handles: the
// size minus the permits held, read from etcd in one round trip. After a
// shrink below the permits held it is negative, until enough come back. It
// is a snapshot for monitoring and teaching, stale as soon as it returns.
// Unlike the local strategies' Available it takes a context and can fail,
// because it asks the server: on error the count is meaningless and the
// error wraps [ErrUnavailable] (or is ctx's).
func (s *Semaphore) Available(ctx context.Context) (int64, error) {
	rec, kvs, _, err := s.readFirst(ctx, 0)
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, roundTripErr(fmt.Sprintf("Available on %q", s.name), err)
	}
	held, _ := s.holders(rec, kvs)
	return rec.size - held, nil
}

// holders returns the permits held by the keys kvs, in line order, by the
// rule of rec, and how many of the keys hold: those first in line.
func (s *Semaphore) holders(rec sizeRecord, kvs []*mvccpb.KeyValue) (held int64, n int) {
	for _, kv := range kvs {
		w := s.weightOf(kv.Value, rec.size)
		if !rec.holds(kv.CreateRevision, held, w) {
			break
		}
		held += w
		n++
	}
	return held, n
}

// Close revokes the handle's lease, which deletes all its keys: permits it
// holds are given back and its waiting Acquire calls fail with ErrClosed;
// the Done channels of its Permits close. It stops the background retries,
// the lease's keep-alive and the watch on the size. Close returns the
// error of the revocation, if any (the permits then come back when the
// lease expires); calls after the first return nil. A handle made
// [WithSession] leaves the session's lease to the session: Close deletes
// the handle's keys instead, and returns the error of that deletion (the
// keys then stay until the session ends; so may a write of an Acquire that
// was on the wire when Close began). After Close, Acquire fails with ErrClosed, TryAcquire
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
	s.session.leave(s.lease)
	if s.ownsSession {
		return s.session.Close()
	}
	if s.session.trust.err() != nil {
		return nil // the keys go, or went, with the lease
	}
	ctx, cancel := s.opCtx()
	defer cancel()
	if _, err := s.cli.Delete(ctx, s.keyBase, clientv3.WithPrefix()); err != nil {
		return roundTripErr("Close: deleting the handle's keys from its session's lease", err)
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
	s.session.gone()
	s.lease.end(leaseLost(s.name, s.lease.id, "the server no longer knows the lease")) // (if it left the session)
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
	t := time.NewTimer(retryPause(attempt))
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

// retryPause is the pause before retry number attempt+1 of something that
// failed attempt+1 times in a row: it grows by a twentieth of a second a failure up to a
// second, and a random half of it is left out (jitter), so that handles
// that failed together, on a member that lost its leader for instance, do
// not retry together.
func retryPause(attempt int) time.Duration {
	base := min(time.Duration(attempt+1)*50*time.Millisecond, time.Second)
	return base/2 + rand.N(base/2+1)
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

// weightOf parses a key's value. A value that is not a weight of at least
// 1 (a key someone else wrote under the prefix) counts as the whole size:
// it blocks the queue rather than let anyone in unaccounted.
func (s *Semaphore) weightOf(v []byte, size int64) int64 {
	ws, _, _ := strings.Cut(string(v), " ")
	w, err := strconv.ParseInt(ws, 10, 64)
	if err != nil || w < 1 {
		return size
	}
	return w
}
