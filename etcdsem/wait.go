package etcdsem

import (
	"context"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// waiter is an Acquire whose key does not hold yet.
type waiter struct {
	s        *Semaphore
	ctx      context.Context
	e        *entry
	q        *queueState
	failures int  // round trips failed in a row
	ended    bool // the last watch ended (canceled, or closed) rather than changed the view
	rewatch  int  // watches ended in a row, with no event between
}

// wait waits until e's key holds, and returns nil once a read made after
// the key was touched (see confirm) agrees. While other keys wait ahead,
// it watches only the one just ahead; once every key ahead holds, it
// watches the queue and counts the permits given back ahead of it. Server
// work per change is so one event for the head of the waiters and one for
// the waiter behind the key that changed, however long the queue.
func (s *Semaphore) wait(ctx context.Context, e *entry, q *queueState) error {
	defer s.hook.wait(ctx, q)()
	w := &waiter{s: s, ctx: ctx, e: e, q: q}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if q.exceeds(e.weight) {
			return exceedsSize(e.weight, q.rec.size)
		}
		if !q.fits(e.weight) {
			if err := w.watch(); err != nil {
				return err
			}
			continue
		}
		granted, err := w.confirm()
		if granted || err != nil {
			return err
		}
	}
}

// read reads the size record and the queue ahead of the key again: the
// first keys in line, enough when every key ahead holds, and the key just
// ahead only when not.
func (w *waiter) read() error {
	s, e := w.s, w.e
	rec, first, rev, err := s.readFirst(w.ctx, e.rev)
	if err != nil {
		return w.failed("Acquire: reading the queue", err)
	}
	q, gone := s.view(e, rec, rev, first, nil, false)
	if q == nil && !gone {
		last, err := s.cli.Do(w.ctx, s.lastKeys(e.rev, rev))
		if err != nil {
			return w.failed("Acquire: reading the queue", err)
		}
		q, gone = s.view(e, rec, rev, first, last.Get().Kvs, true)
	}
	if gone {
		return s.keyGone(e)
	}
	w.failures = 0
	*w.q = *q
	s.hook.saw(w.q)
	return nil
}

// confirm makes sure the key still exists and the size is still the one
// the view counted with, and touches the key (rewrites its weight in
// place) in the same transaction. The watch says the key fits, and the
// keys ahead only ever leave or shrink, so it holds if it still exists
// under that size: it may have gone with its lease meanwhile (the check
// etcd's own Mutex makes after waiting). If only the size changed, the
// view is stale, and the queue is read again. The touch tells the waiter
// behind, which watches this key alone, that it is now first among the
// waiters. The put happens only while the key exists, so it never brings
// a deleted key back.
func (w *waiter) confirm() (granted bool, err error) {
	s, e := w.s, w.e
	s.hook.confirming(e.key)
	resp, err := s.cli.Txn(w.ctx).
		If(clientv3.Compare(clientv3.CreateRevision(e.key), "=", e.rev),
			clientv3.Compare(clientv3.ModRevision(s.sizeKey), "=", w.q.rec.rev)).
		Then(clientv3.OpPut(e.key, s.value(e.weight), clientv3.WithLease(s.lease.id))).
		Else(clientv3.OpGet(e.key), s.getSize()).
		Commit()
	if err != nil {
		return false, w.failed("Acquire: confirming the grant", err)
	}
	if !resp.Succeeded {
		kvs := resp.Responses[0].GetResponseRange().Kvs
		if len(kvs) == 0 || kvs[0].CreateRevision != e.rev {
			return false, s.keyGone(e)
		}
		s.learnSize((*clientv3.GetResponse)(resp.Responses[1].GetResponseRange()))
		w.q.stale = true
		return false, nil
	}
	s.hook.wrote(e.key, resp.Header.Revision)
	return true, nil
}

// failed returns nil after a pause if the round trip that failed with err
// is worth trying again, and the error to return otherwise.
func (w *waiter) failed(what string, err error) error {
	w.failures++
	return w.s.backoff(w.ctx, what, err, w.failures-1)
}

// watch watches what the waiter needs until its view changes: the key
// just ahead if it waits (any change of it), else the queue (the keys
// ahead leaving or shrinking, until the key fits, and the key itself
// leaving). The watch starts at the server's current revision, which
// costs the server nothing to catch up, and the queue is read again if the
// waiter's view is stale or older than that; events the view already holds
// are skipped. It returns when the key fits, when the view must be read
// again (stale), or when it calls for another watch.
func (w *waiter) watch() error {
	s, e, q := w.s, w.e, w.q
	pred := q.pred
	if q.stale {
		pred = "" // the key ahead changed: most likely it holds now, and this key is the head
	}
	key, opts := pred, []clientv3.OpOption{clientv3.WithCreatedNotify()}
	if pred == "" {
		key, opts = s.queue, append(opts, clientv3.WithPrefix())
	}
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(w.ctx))
	defer cancel()
	wch := s.cli.Watch(wctx, key, opts...)
	s.hook.watched()
	for {
		wr, err := w.next(wch)
		if err != nil {
			return err
		}
		if wr == nil {
			if w.ended {
				return w.afterEnd()
			}
			return nil
		}
		if wr.Created {
			if q.stale || wr.Header.Revision > q.rev {
				q.stale = true
				if err := w.read(); err != nil {
					return err
				}
			}
			if q.stale || q.pred != pred || q.fits(e.weight) || q.exceeds(e.weight) {
				return nil
			}
			continue
		}
		w.rewatch = 0
		changed := false
		for _, ev := range wr.Events {
			if ev.Kv.ModRevision <= q.rev {
				continue // the view holds it already
			}
			if pred != "" || string(ev.Kv.Key) == e.key {
				changed = true // the key ahead changed, or this one left
				continue
			}
			q.apply(ev, func(v []byte) int64 { return s.weightOf(v, q.rec.size) })
		}
		q.rev = max(q.rev, wr.Header.Revision)
		s.hook.saw(q)
		if changed || q.fits(e.weight) {
			q.stale = changed
			return nil
		}
	}
}

// next returns the watch's next response, nil with the view marked stale
// if the watch ended (compaction, a member without a leader: w.ended is
// then set) or the size changed, or an error if the handle can no longer
// be used.
func (w *waiter) next(wch clientv3.WatchChan) (*clientv3.WatchResponse, error) {
	s := w.s
	var wr clientv3.WatchResponse
	var ok, resizedFirst bool
	var resized <-chan struct{} // (a stale view is read again once the watch starts)
	if !w.q.stale {
		resized = s.sizes.since(w.q.rec.rev)
	}
	s.hook.leave()
	select {
	case wr, ok = <-wch:
	case <-s.lease.dead:
	case <-resized: // read the size and the queue again
		resizedFirst = true
	}
	s.hook.enter()
	if err := s.usable(); err != nil {
		return nil, err
	}
	if resizedFirst || !ok || wr.Canceled || wr.Err() != nil {
		w.q.stale, w.ended = true, !resizedFirst
		return nil, nil
	}
	return &wr, nil
}

// afterEnd pauses, then reads the queue, before the waiter watches again
// after its watch ended. A watch ends mostly because its member lost the
// leader (the watches require one) or the revision it starts from was
// compacted; watched again at once, it would be refused at once, over and
// over, a load on a cluster that is already sick. The pause grows with the
// ends in a row, with jitter (see retryPause); the read tells whether the
// key fits meanwhile, and fails, with its own pause, while the member has
// no leader.
func (w *waiter) afterEnd() error {
	s := w.s
	w.ended = false
	t := time.NewTimer(retryPause(w.rewatch))
	defer t.Stop()
	w.rewatch++
	select {
	case <-w.ctx.Done():
		return w.ctx.Err()
	case <-s.lease.dead:
		return s.usable()
	case <-t.C:
	}
	return w.read()
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
