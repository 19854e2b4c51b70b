package etcdsem

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// queueState is what a waiting key knows of the queue ahead of it. When
// every key ahead holds (the key is the head of the waiters), it knows
// them all, at most size of them, and their sum; otherwise it knows only
// pred, the key just ahead, itself a waiter, and watches nothing else.
type queueState struct {
	ahead map[string]int64 // key -> weight, when every key ahead holds
	sum   int64            // sum of ahead's weights
	pred  string           // the key just ahead, when it waits
	rev   int64            // the revision at which this was true
	rec   sizeRecord       // the size record at rev
	held  bool             // the key is within rec's bound: it holds
	stale bool             // the queue must be read again before use
}

// fits reports whether a key of weight n may hold, by what q knows.
func (q *queueState) fits(n int64) bool {
	return !q.stale && (q.held || q.pred == "" && n <= q.rec.size-q.sum)
}

// exceeds reports whether a key of weight n can never hold, by what q
// knows: n is more than the size, and the key did not hold before the
// size shrank.
func (q *queueState) exceeds(n int64) bool { return !q.held && n > q.rec.size }

// enqueue writes a new key of weight n, attached to the lease, and reads
// the queue ahead of it in the same transaction. The transaction is sent
// under the handle's timeout, not ctx: a request abandoned when ctx ends
// could still land after the deletion meant to undo it, leaving a key that
// holds permits nobody tracks. The caller learns the outcome and undoes it
// itself if ctx ended meanwhile. The transaction only puts the key if it
// does not exist yet, so it is retried safely when its outcome is unknown
// (an unavailable server, a leader election, a timeout). If it gives up
// after an unknown outcome, it has the key deleted in the background (the
// server is unlikely to answer at once) and the handle sweep its keys for a
// while, in case the put lands after the delete.
func (s *Semaphore) enqueue(ctx context.Context, n int64) (*entry, *queueState, error) {
	if err := s.usable(); err != nil {
		return nil, nil, err
	}
	e := &entry{key: s.keyBase + strconv.FormatUint(s.seq.Add(1), 10), weight: n}
	s.mu.Lock()
	s.keys[e.key] = e // before the put is sent: a sweep must never take it
	s.mu.Unlock()
	put := clientv3.OpPut(e.key, s.value(n), clientv3.WithLease(s.lease.id))
	for attempt := 0; ; attempt++ {
		known := s.sizes.current()
		resp, err := s.sendEnqueue(e.key, put, known)
		if err == nil {
			return s.enqueued(e, resp, known)
		}
		if errors.Is(err, rpctypes.ErrLeaseNotFound) {
			s.forget(e)
			return nil, nil, s.leaseGone()
		}
		s.sweepSoon() // the put may have landed, or may still land
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			continue // the attempt timed out, the caller has time: send it again
		}
		if err = s.backoff(ctx, "Acquire: joining the queue", err, attempt); err != nil {
			s.dropLater(e)
			return nil, nil, err
		}
	}
}

// sendEnqueue sends enqueue's transaction, bounded by the timeout: put the
// key unless it exists, and read the size record and the queue ahead of
// the key (see view), as many keys as known says can hold. If the key
// exists (an earlier attempt landed), read the key itself.
func (s *Semaphore) sendEnqueue(key string, put clientv3.Op, known sizeRecord) (*clientv3.TxnResponse, error) {
	if err := s.hook.faultEnqueue(key); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(s.lease.ctx, s.opts.timeout)
	defer cancel()
	return s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(put, s.getSize(), s.firstKeys(0, known), s.lastKeys(0, 0)).
		Else(clientv3.OpGet(key)).
		Commit()
}

// enqueued returns the entry and what it knows of the queue after
// enqueue's transaction, which read as many keys as known says can hold.
func (s *Semaphore) enqueued(e *entry, resp *clientv3.TxnResponse, known sizeRecord) (*entry, *queueState, error) {
	if !resp.Succeeded { // an earlier attempt put the key: learn its place
		if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) == 1 {
			e.rev = kvs[0].CreateRevision
			return e, &queueState{rev: resp.Header.Revision, rec: known, stale: true}, nil
		}
		s.forget(e)
		return nil, nil, s.keyGone(e)
	}
	s.hook.wrote(e.key, resp.Header.Revision)
	rec := s.learnSize((*clientv3.GetResponse)(resp.Responses[1].GetResponseRange()))
	q, gone := s.view(e, rec, resp.Header.Revision,
		resp.Responses[2].GetResponseRange().Kvs, resp.Responses[3].GetResponseRange().Kvs, true)
	if gone {
		s.forget(e)
		return nil, nil, s.keyGone(e)
	}
	// A view that found e among the first keys read them all; one that did
	// not may have read too few, by a size record that has changed since.
	q.stale = rec.rev != known.rev && q.pred != ""
	return e, q, nil
}

// firstKeys reads the first keys in line, up to the key created at
// revision rev (0: up to the newest key), as many as can hold at once by
// rec and one more: what the head of the waiters needs, whatever the
// queue's length.
func (s *Semaphore) firstKeys(rev int64, rec sizeRecord) clientv3.Op {
	opts := []clientv3.OpOption{clientv3.WithPrefix(),
		clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend),
		clientv3.WithLimit(rec.readLimit())}
	if rev != 0 {
		opts = append(opts, clientv3.WithMaxCreateRev(rev))
	}
	return clientv3.OpGet(s.queue, opts...)
}

// lastKeys reads the key created at revision rev (0: the newest key) and
// the key just ahead of it, at the revision at (0: the current one).
func (s *Semaphore) lastKeys(rev, at int64) clientv3.Op {
	opts := []clientv3.OpOption{clientv3.WithPrefix(),
		clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortDescend), clientv3.WithLimit(2)}
	if rev != 0 {
		opts = append(opts, clientv3.WithMaxCreateRev(rev))
	}
	if at != 0 {
		opts = append(opts, clientv3.WithRev(at))
	}
	return clientv3.OpGet(s.queue, opts...)
}

// view builds what e knows of the queue from reads at revision rev of
// firstKeys and lastKeys, with rec the size record then, and records e's
// create revision. It reports gone if e is not in the reads, or is there
// with another create revision than the one recorded: e's key was
// deleted. When first shows that a key ahead waits and last was not read
// (read is false), it returns neither a view nor gone: read last.
func (s *Semaphore) view(e *entry, rec sizeRecord, rev int64, first, last []*mvccpb.KeyValue, read bool) (q *queueState, gone bool) {
	q = &queueState{ahead: make(map[string]int64), rev: rev, rec: rec}
	for _, kv := range first {
		if string(kv.Key) == e.key {
			if e.rev != 0 && kv.CreateRevision != e.rev {
				return nil, true
			}
			e.rev = kv.CreateRevision
			q.held = e.rev <= rec.bound
			return q, false // every key ahead holds
		}
		w := s.weightOf(kv.Value, rec.size)
		if !rec.holds(kv.CreateRevision, q.sum, w) {
			break // kv waits, and so does every key behind it
		}
		q.ahead[string(kv.Key)] = w
		q.sum += w
	}
	if !read {
		return nil, false
	}
	if len(last) < 2 || string(last[0].Key) != e.key || (e.rev != 0 && last[0].CreateRevision != e.rev) {
		return nil, true // (with nobody ahead, e would have been in first)
	}
	e.rev = last[0].CreateRevision
	return &queueState{pred: string(last[1].Key), rev: rev, rec: rec}, false
}

// keyGone is the error of a call whose key was deleted by someone else than
// this handle: its lease expired or was revoked, or a tool removed it.
func (s *Semaphore) keyGone(e *entry) error {
	if err := s.usable(); err != nil {
		return err
	}
	return leaseLost(s.name, s.lease.id, fmt.Sprintf("key %s was deleted", e.key))
}
