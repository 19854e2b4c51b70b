package etcdsem

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
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
	stale bool             // the queue must be read again before use
}

// fits reports whether a key of weight n may hold, by what q knows.
func (q *queueState) fits(n, size int64) bool { return !q.stale && q.pred == "" && q.sum+n <= size }

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
		resp, err := s.sendEnqueue(e.key, put)
		if err == nil {
			return s.enqueued(e, resp)
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
// key unless it exists, and read the queue ahead of it (see readOps). If
// the key exists (an earlier attempt landed), read the key itself.
func (s *Semaphore) sendEnqueue(key string, put clientv3.Op) (*clientv3.TxnResponse, error) {
	if err := s.hook.faultEnqueue(key); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(s.lease.ctx, s.opts.timeout)
	defer cancel()
	return s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(append([]clientv3.Op{put}, s.readOps(0)...)...).
		Else(clientv3.OpGet(key)).
		Commit()
}

// enqueued returns the entry and what it knows of the queue after
// enqueue's transaction.
func (s *Semaphore) enqueued(e *entry, resp *clientv3.TxnResponse) (*entry, *queueState, error) {
	if !resp.Succeeded { // an earlier attempt put the key: learn its place
		if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) == 1 {
			e.rev = kvs[0].CreateRevision
			return e, &queueState{rev: resp.Header.Revision, stale: true}, nil
		}
		s.forget(e)
		return nil, nil, s.keyGone(e)
	}
	s.hook.wrote(e.key, resp.Header.Revision)
	q, ok := s.queueAhead(e, resp.Header.Revision, resp.Responses[1:])
	if !ok {
		s.forget(e)
		return nil, nil, s.keyGone(e)
	}
	return e, q, nil
}

// readOps reads what a key created at revision rev (0: the newest key)
// needs of the queue, whatever its length: the first keys in line, as many
// as can hold at once (each holds at least one permit) and one more, and
// the key itself with the one just ahead of it.
func (s *Semaphore) readOps(rev int64) []clientv3.Op {
	first := []clientv3.OpOption{clientv3.WithPrefix(),
		clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend), clientv3.WithLimit(min(s.size, math.MaxInt64-1) + 1)}
	last := []clientv3.OpOption{clientv3.WithPrefix(),
		clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortDescend), clientv3.WithLimit(2)}
	if rev != 0 {
		first = append(first, clientv3.WithMaxCreateRev(rev))
		last = append(last, clientv3.WithMaxCreateRev(rev))
	}
	return []clientv3.Op{clientv3.OpGet(s.queue, first...), clientv3.OpGet(s.queue, last...)}
}

// queueAhead builds what e knows of the queue from the responses of
// readOps at revision rev, and records e's create revision. It reports
// false if e is not in the read, or is there with another create revision
// than the one recorded: e's key was deleted.
func (s *Semaphore) queueAhead(e *entry, rev int64, reads []*etcdserverpb.ResponseOp) (*queueState, bool) {
	first := reads[0].GetResponseRange().Kvs
	last := reads[1].GetResponseRange().Kvs
	if len(last) == 0 || string(last[0].Key) != e.key || (e.rev != 0 && last[0].CreateRevision != e.rev) {
		return nil, false
	}
	e.rev = last[0].CreateRevision
	q := &queueState{ahead: make(map[string]int64), rev: rev}
	if len(last) == 1 {
		return q, true // nobody ahead
	}
	for _, kv := range first {
		if kv.CreateRevision >= e.rev {
			return q, true // every key ahead holds
		}
		w := s.weightOf(kv.Value)
		if q.sum+w > s.size {
			break // kv waits, and so does every key behind it
		}
		q.ahead[string(kv.Key)] = w
		q.sum += w
	}
	return &queueState{pred: string(last[1].Key), rev: rev}, true
}

// keyGone is the error of a call whose key was deleted by someone else than
// this handle: its lease expired or was revoked, or a tool removed it.
func (s *Semaphore) keyGone(e *entry) error {
	if err := s.usable(); err != nil {
		return err
	}
	return leaseLost(s.name, s.lease.id, fmt.Sprintf("key %s was deleted", e.key))
}
