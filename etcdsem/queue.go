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

// queueState is what a key's waiter knows of the keys created before it.
type queueState struct {
	ahead map[string]int64 // key -> weight
	sum   int64            // sum of ahead's weights
	rev   int64            // the revision at which this was true
}

func (q *queueState) fits(n, size int64) bool { return q.sum+n <= size }

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
	read := clientv3.OpGet(s.queue, clientv3.WithPrefix())
	for attempt := 0; ; attempt++ {
		resp, err := s.sendEnqueue(e.key, put, read)
		if err == nil {
			if resp.Succeeded {
				s.hook.wrote(resp.Header.Revision)
			}
			kvs := resp.Responses[len(resp.Responses)-1].GetResponseRange().Kvs
			if q, ok := s.queueAhead(e, resp.Header.Revision, kvs); ok {
				return e, q, nil
			}
			s.forget(e)
			return nil, nil, s.keyGone(e)
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
// key unless it exists, and read the queue.
func (s *Semaphore) sendEnqueue(key string, put, read clientv3.Op) (*clientv3.TxnResponse, error) {
	if err := s.hook.faultEnqueue(key); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(s.lease.ctx, s.opts.timeout)
	defer cancel()
	return s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(put, read).
		Else(read).
		Commit()
}

// queueAhead builds the state of the keys ahead of e from a read of the
// queue at revision rev, and records e's create revision. It reports false
// if e is not in the read, or is there with another create revision than
// the one recorded: e's key was deleted.
func (s *Semaphore) queueAhead(e *entry, rev int64, kvs []*mvccpb.KeyValue) (*queueState, bool) {
	var created int64
	for _, kv := range kvs {
		if string(kv.Key) == e.key {
			created = kv.CreateRevision
		}
	}
	if created == 0 || (e.rev != 0 && created != e.rev) {
		return nil, false
	}
	e.rev = created
	q := &queueState{ahead: make(map[string]int64, len(kvs)), rev: rev}
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
// e's weight, then reads e's place again and returns nil only if that read
// agrees (see the package's design). After a watch fails (compaction, a
// member without a leader) it reads the queue again too and watches from
// there.
func (s *Semaphore) wait(ctx context.Context, e *entry, q *queueState) error {
	defer s.hook.wait(ctx, q)()
	for attempt := 0; ; {
		fits, err := s.watch(ctx, e, q)
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if fits {
			s.hook.confirming(e.key)
		}
		resp, err := s.cli.Get(ctx, s.queue, clientv3.WithPrefix(), clientv3.WithMaxCreateRev(e.rev))
		if err != nil {
			if err = s.backoff(ctx, "Acquire: reading the queue", err, attempt); err != nil {
				return err
			}
			attempt++
			continue
		}
		attempt = 0
		nq, ok := s.queueAhead(e, resp.Header.Revision, resp.Kvs)
		if !ok {
			return s.keyGone(e)
		}
		*q = *nq
		s.hook.saw(q)
		if q.fits(e.weight, s.size) {
			return nil
		}
	}
}

// watch applies the queue's changes after q.rev to q until e fits (true),
// e's key disappears or the handle can no longer be used (an error), or the
// watch ends (neither: the caller reads the queue again).
func (s *Semaphore) watch(ctx context.Context, e *entry, q *queueState) (fits bool, err error) {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	wch := s.cli.Watch(wctx, s.queue, clientv3.WithPrefix(), clientv3.WithRev(q.rev+1))
	for {
		var wr clientv3.WatchResponse
		var ok bool
		s.hook.leave()
		select {
		case wr, ok = <-wch:
		case <-s.lease.dead:
		}
		s.hook.enter()
		if err := s.usable(); err != nil {
			return false, err
		}
		if !ok || wr.Canceled || wr.Err() != nil {
			return false, nil
		}
		for _, ev := range wr.Events {
			if string(ev.Kv.Key) == e.key {
				if ev.Type == mvccpb.DELETE {
					return false, s.keyGone(e)
				}
				continue
			}
			q.apply(ev, s.weightOf)
		}
		q.rev = wr.Header.Revision
		s.hook.saw(q)
		if q.fits(e.weight, s.size) {
			return true, nil
		}
	}
}

// apply updates q with one event of the queue: a key ahead left or shrank.
// Keys created after q's own are not ahead and do not count.
func (q *queueState) apply(ev *clientv3.Event, weightOf func([]byte) int64) {
	k := string(ev.Kv.Key)
	w, ahead := q.ahead[k]
	if !ahead {
		return
	}
	if ev.Type == mvccpb.DELETE {
		delete(q.ahead, k)
		q.sum -= w
		return
	}
	nw := weightOf(ev.Kv.Value)
	q.ahead[k] = nw
	q.sum += nw - w
}

// keyGone is the error of a call whose key was deleted by someone else than
// this handle: its lease expired or was revoked, or a tool removed it.
func (s *Semaphore) keyGone(e *entry) error {
	if err := s.usable(); err != nil {
		return err
	}
	return leaseLost(s.name, s.lease.id, fmt.Sprintf("key %s was deleted", e.key))
}
