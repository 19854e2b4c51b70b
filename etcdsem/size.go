package etcdsem

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// sizeRecord is what the size key records: the size, and, after a shrink,
// which keys held then. Keys created at or before bound held when the size
// last shrank; they keep holding until they leave, whatever the size (a
// shrink revokes nothing), and there were count of them. rev is the size
// key's mod revision, which grants compare to make sure the size they
// counted with is still the size.
type sizeRecord struct {
	size  int64
	bound int64
	count int64
	rev   int64
}

// String is the value the size key records: the size alone while no
// shrink left keys holding beyond it.
func (r sizeRecord) String() string {
	if r.bound == 0 {
		return strconv.FormatInt(r.size, 10)
	}
	return fmt.Sprintf("%d %d %d", r.size, r.bound, r.count)
}

// parseSize reads the size key kv.
func parseSize(kv *mvccpb.KeyValue) (sizeRecord, bool) {
	fields := strings.Fields(string(kv.Value))
	r := sizeRecord{rev: kv.ModRevision}
	var err error
	switch len(fields) {
	case 3:
		if r.bound, err = strconv.ParseInt(fields[1], 10, 64); err != nil {
			return r, false
		}
		if r.count, err = strconv.ParseInt(fields[2], 10, 64); err != nil {
			return r, false
		}
		fallthrough
	case 1:
		r.size, err = strconv.ParseInt(fields[0], 10, 64)
		return r, err == nil && r.size >= 1 && r.count >= 0
	}
	return r, false
}

// readLimit is how many keys, first in line, can hold at once (each holds
// at least one permit) and one more: what the head of the waiters needs.
func (r sizeRecord) readLimit() int64 {
	return min(r.count, maxKeys) + min(r.size, maxKeys) + 1
}

// maxKeys bounds readLimit's terms, far above any queue etcd can keep.
const maxKeys = 1 << 40

// holds reports whether a key created at rev, with held permits held ahead
// of it, holds w permits by the rule: it is within the bound, or it fits in
// what the size leaves.
func (r sizeRecord) holds(rev, held, w int64) bool {
	return rev <= r.bound || w <= r.size-held
}

// sizes is the handle's view of the size record: the newest it has seen,
// and a channel closed when a newer one comes (a waiter then reads the
// queue again, and one larger than the new size fails).
type sizes struct {
	mu      sync.Mutex
	rec     sizeRecord
	changed chan struct{}
}

func newSizes(rec sizeRecord) *sizes {
	return &sizes{rec: rec, changed: make(chan struct{})}
}

// current returns the newest record seen.
func (z *sizes) current() sizeRecord {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.rec
}

// learn records rec if it is newer than the one seen, and wakes those
// waiting for a change.
func (z *sizes) learn(rec sizeRecord) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if rec.rev <= z.rec.rev {
		return
	}
	z.rec = rec
	close(z.changed)
	z.changed = make(chan struct{})
}

// since returns a channel closed once a record newer than the one at rev
// is seen (closed already if it is).
func (z *sizes) since(rev int64) <-chan struct{} {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.rec.rev != rev {
		return closedChan
	}
	return z.changed
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// getSize reads the size key.
func (s *Semaphore) getSize() clientv3.Op { return clientv3.OpGet(s.sizeKey) }

// learnSize records the size key read in resp and returns it, if it is
// there and valid, and otherwise returns the record the handle knows.
func (s *Semaphore) learnSize(resp *clientv3.GetResponse) sizeRecord {
	if len(resp.Kvs) == 1 {
		if rec, ok := parseSize(resp.Kvs[0]); ok {
			s.sizes.learn(rec)
			return rec
		}
	}
	return s.sizes.current()
}

// Size returns the number of permits, as the handle last saw it in etcd:
// a Resize through any handle reaches the others within a watch event.
func (s *Semaphore) Size() int64 { return s.sizes.current().size }

// Resize sets the size of the semaphore in etcd, for every handle on its
// name, in two round trips bounded by the timeout (see [WithTimeout]).
// Growing grants the waiters that now fit, in their order. Shrinking
// revokes nothing: the keys that hold keep holding, no permit is granted
// until fewer than the new size are held, and every waiting Acquire larger
// than the new size fails with an error wrapping sem.ErrExceedsSize, as
// does every later one. Other handles learn the new size from a watch;
// New with the old size then fails with ErrSizeMismatch. If etcd cannot
// be reached in time, or the handle is closed, the size is unchanged and
// the error goes to the handler set with [WithErrorHandler]. It panics if
// size is less than 1.
func (s *Semaphore) Resize(size int64) {
	checkResize(size)
	ctx, cancel := s.opCtx()
	defer cancel()
	if err := s.resize(ctx, size); err != nil {
		s.report(err)
	}
}

// resize reads the size record and the first keys in line, and writes the
// new record unless the size changed meanwhile, retrying until it did
// write or ctx ends. A shrink records the keys that hold, by the rule
// with the old size, as the bound: they keep holding. A key that comes to
// hold between the read and the write is not in the bound; its grant was
// counted under the old size, and it only makes Available and Waiting
// count it as waiting until it leaves.
func (s *Semaphore) resize(ctx context.Context, size int64) error {
	what := fmt.Sprintf("Resize(%d) on %q", size, s.name)
	for attempt := 0; ; attempt++ {
		if err := s.usable(); err != nil {
			return err
		}
		old, kvs, _, err := s.readFirst(ctx, 0)
		if err == nil {
			var written bool
			if written, err = s.writeSize(ctx, old, s.resized(old, size, kvs)); written {
				return nil
			}
			if err == nil {
				continue // the size changed meanwhile: read it again
			}
		}
		if err = s.backoff(ctx, what, err, attempt); err != nil {
			return err
		}
	}
}

// resized is the record of size after old, whose first keys in line are kvs.
func (s *Semaphore) resized(old sizeRecord, size int64, kvs []*mvccpb.KeyValue) sizeRecord {
	rec := sizeRecord{size: size, bound: old.bound, count: old.count}
	if size >= old.size {
		return rec
	}
	rec.bound, rec.count = 0, 0
	var held int64
	for _, kv := range kvs {
		w := s.weightOf(kv.Value, old.size)
		if !old.holds(kv.CreateRevision, held, w) {
			break
		}
		held += w
		rec.bound, rec.count = kv.CreateRevision, rec.count+1
	}
	return rec
}

// writeSize writes rec over old unless the size changed meanwhile, and
// reports whether it wrote.
func (s *Semaphore) writeSize(ctx context.Context, old, rec sizeRecord) (written bool, err error) {
	resp, err := s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(s.sizeKey), "=", old.rev)).
		Then(clientv3.OpPut(s.sizeKey, rec.String())).
		Else(s.getSize()).
		Commit()
	if err != nil {
		return false, err
	}
	if !resp.Succeeded {
		s.learnSize((*clientv3.GetResponse)(resp.Responses[0].GetResponseRange()))
		return false, nil
	}
	rec.rev = resp.Header.Revision
	s.sizes.learn(rec)
	s.hook.resized(rec.rev)
	return true, nil
}

// readFirst reads the size record and the first keys in line, up to the
// key created at revision rev (0: up to the newest), at one revision, which
// it returns, and learns the record. When the record read differs from the
// one the read was sized by, it reads again with the new one.
func (s *Semaphore) readFirst(ctx context.Context, rev int64) (sizeRecord, []*mvccpb.KeyValue, int64, error) {
	for {
		known := s.sizes.current()
		resp, err := s.cli.Txn(ctx).Then(s.getSize(), s.firstKeys(rev, known)).Commit()
		if err != nil {
			return sizeRecord{}, nil, 0, err
		}
		rec := s.learnSize((*clientv3.GetResponse)(resp.Responses[0].GetResponseRange()))
		if rec.rev == known.rev {
			return rec, resp.Responses[1].GetResponseRange().Kvs, resp.Header.Revision, nil
		}
	}
}

// watchSize keeps the handle's size record current: it watches the size
// key from revision from on, and reads it again whenever the watch ends,
// until the handle's lease ends. Each watch ends as soon as its member has
// no leader (WithRequireLeader), so without a quorum the loop runs once
// per pause (see retryPause); the read is bounded by the timeout and not
// made WithRequireLeader, since the client retries a read that fails
// fast every few milliseconds for as long as its context lasts, and the
// handle's lasts as long as its lease.
func (s *Semaphore) watchSize(from int64) {
	defer s.background.Done()
	ctx := clientv3.WithRequireLeader(s.lease.ctx)
	for attempt := 0; ctx.Err() == nil; attempt++ {
		for wr := range s.cli.Watch(ctx, s.sizeKey, clientv3.WithRev(from)) {
			if wr.Err() != nil {
				break
			}
			s.hook.sizeEvent()
			for _, ev := range wr.Events {
				if rec, ok := parseSize(ev.Kv); ok && ev.Type == mvccpb.PUT {
					s.sizes.learn(rec)
				}
			}
			from, attempt = wr.Header.Revision+1, 0
		}
		t := time.NewTimer(retryPause(attempt + 1))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if rev, ok := s.readSize(); ok {
			from = rev + 1
		}
	}
}

// readSize reads the size key, within the timeout, and learns it; it
// returns the revision read at, or false if the read failed.
func (s *Semaphore) readSize() (int64, bool) {
	ctx, cancel := context.WithTimeout(s.lease.ctx, s.opts.timeout)
	defer cancel()
	resp, err := s.cli.Get(ctx, s.sizeKey)
	if err != nil {
		return 0, false
	}
	s.learnSize(resp)
	return resp.Header.Revision, true
}
