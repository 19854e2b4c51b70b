package etcdsem

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Release gives back n of the permits the handle holds through Acquire and
// TryAcquire, deleting its oldest keys first and shrinking one key in place
// when n does not end on a key boundary. It panics, before changing
// anything, if n is more than the handle holds.
//
// Errors go to the handler set with [WithErrorHandler]: see
// [Semaphore.ReleaseErr] for which. The permits are no longer the caller's
// either way.
func (s *Semaphore) Release(n int64) {
	ctx, cancel := s.opCtx()
	defer cancel()
	if err := s.ReleaseErr(ctx, n); err != nil {
		s.report(err)
	}
}

// ReleaseErr is Release returning the outcome of its write to etcd instead
// of only reporting it to the handler. It returns nil once the keys are
// deleted (or shrunk). It returns an error wrapping [ErrLeaseLost] if a
// key was already gone, or the lease is no longer trusted: the permits may
// have been someone else's for a while. It returns one wrapping
// [ErrUnavailable] if etcd could not be reached within ctx and the timeout
// (see [WithTimeout]); the write is then retried in the background until it
// succeeds or the handle is closed, and in any case the permits come back
// when the lease ends. After Close it returns ErrClosed. Whatever the
// error, the permits are the handle's no more.
func (s *Semaphore) ReleaseErr(ctx context.Context, n int64) error {
	checkWeight("Release", n)
	if n == 0 {
		return nil
	}
	s.mu.Lock()
	if n > s.heldSum {
		held := s.heldSum
		s.mu.Unlock()
		overRelease(n, held)
	}
	s.heldSum -= n
	var touched []*entry
	for n > 0 {
		e := s.held[0]
		take := min(n, e.weight)
		e.weight -= take
		n -= take
		if e.weight == 0 {
			s.held[0] = nil
			s.held = s.held[1:]
		}
		touched = append(touched, e)
	}
	s.mu.Unlock()
	return s.release(ctx, touched...)
}

// release writes the new weights of the entries touched by a release and
// returns their outcome: nil, or why it cannot be called a success.
func (s *Semaphore) release(ctx context.Context, touched ...*entry) error {
	if err := s.usable(); err != nil {
		return err // the lease, revoked or untrusted, takes the keys
	}
	s.mu.Lock()
	for _, e := range touched {
		s.dirty[e.key] = e
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, s.opts.timeout)
	defer cancel()
	err := s.sync(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range touched {
		if e.gone {
			return leaseLost(s.name, s.lease.id, fmt.Sprintf("releasing: key %s was already deleted", e.key))
		}
		if s.dirty[e.key] == e {
			return err
		}
	}
	return nil
}

// drop deletes e's key, which holds nothing the caller keeps: a waiter that
// gave up, a TryAcquire that did not fit, a write whose outcome is unknown.
func (s *Semaphore) drop(e *entry) {
	if !s.markDropped(e) {
		return
	}
	ctx, cancel := s.opCtx()
	defer cancel()
	if err := s.sync(ctx); err != nil {
		s.report(err)
	}
}

// dropLater has e's key deleted by the janitor, for a caller that gives up
// on a server that did not answer and should not wait for it once more.
func (s *Semaphore) dropLater(e *entry) {
	if s.markDropped(e) {
		s.startJanitor()
	}
}

// markDropped records that e's key must be deleted, and reports whether a
// deletion is needed: a closed handle or an untrusted lease needs none, the
// lease takes the key.
func (s *Semaphore) markDropped(e *entry) bool {
	if s.usable() != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e.weight = 0
	s.dirty[e.key] = e
	return true
}

// forget stops tracking e, whose key is known not to exist.
func (s *Semaphore) forget(e *entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keys[e.key] == e {
		delete(s.keys, e.key)
	}
}

// change is a pending write of one key: its entry and the weight to write.
type change struct {
	e      *entry
	weight int64
}

// sync writes every pending change of the handle's keys to etcd: deletes
// keys whose weight dropped to 0 and rewrites those that shrank, in place
// and only if they still exist (a put to a key etcd already deleted would
// put it at the back of the queue, holding nothing yet believed held).
// Flushes are serialized, so concurrent releases share one round trip and
// writes to one key land in the order they were decided. On failure the
// changes stay pending and the background janitor retries them; the error
// wraps ErrUnavailable.
func (s *Semaphore) sync(ctx context.Context) error {
	s.hook.enter()
	defer s.hook.leave()
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.mu.Lock()
	changes := make([]change, 0, len(s.dirty))
	for _, e := range s.dirty {
		changes = append(changes, change{e, e.weight})
	}
	s.mu.Unlock()
	const maxOps = 64 // well under etcd's default --max-txn-ops of 128
	var firstErr error
	for len(changes) > 0 {
		batch := changes[:min(maxOps, len(changes))]
		changes = changes[len(batch):]
		if err := s.flush(ctx, batch); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		s.startJanitor()
	}
	return firstErr
}

// flush writes one batch of changes, retrying while the server is
// unavailable and ctx has time left, and records the outcome per key.
func (s *Semaphore) flush(ctx context.Context, batch []change) error {
	ops := make([]clientv3.Op, len(batch))
	for i, c := range batch {
		if c.weight == 0 {
			ops[i] = clientv3.OpDelete(c.e.key)
			continue
		}
		ops[i] = clientv3.OpTxn(
			[]clientv3.Cmp{clientv3.Compare(clientv3.CreateRevision(c.e.key), "=", c.e.rev)},
			[]clientv3.Op{clientv3.OpPut(c.e.key, s.value(c.weight), clientv3.WithLease(s.lease.id))},
			nil)
	}
	what := fmt.Sprintf("releasing %d keys", len(batch))
	var absent []bool
	var err error
	for attempt := 0; ; attempt++ {
		if absent, err = s.write(ctx, ops); err == nil {
			err = s.hook.loseReply()
		}
		if err == nil {
			break
		}
		s.mu.Lock()
		for _, c := range batch {
			c.e.unsure = c.e.unsure || c.weight == 0 // the delete may have landed
		}
		s.mu.Unlock()
		if err = s.backoff(ctx, what, err, attempt); err != nil {
			if ctx.Err() != nil { // timed out: the server did not answer in time
				return roundTripErr(what, err)
			}
			return err
		}
	}
	trusted := s.lease.err() == nil
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, c := range batch {
		// A key found missing after an attempt of unknown outcome, on a
		// lease still trusted, was most likely deleted by that attempt.
		c.e.gone = c.e.gone || absent[i] && !(c.e.unsure && trusted)
		if s.dirty[c.e.key] == c.e && c.e.weight == c.weight {
			delete(s.dirty, c.e.key)
		}
		if c.weight == 0 && s.keys[c.e.key] == c.e {
			delete(s.keys, c.e.key)
		}
	}
	return nil
}

// write sends ops to etcd at once: as a bare request when there is one
// (the common Release of one key is then a plain delete, as cheap as
// concurrency.Mutex's Unlock), in a transaction otherwise. It reports, per
// op, whether its key was not there to delete or shrink.
func (s *Semaphore) write(ctx context.Context, ops []clientv3.Op) (absent []bool, err error) {
	absent = make([]bool, len(ops))
	if len(ops) == 1 && ops[0].IsDelete() {
		resp, err := s.cli.Delete(ctx, string(ops[0].KeyBytes()))
		if err != nil {
			return nil, err
		}
		absent[0] = resp.Deleted == 0
		if !absent[0] {
			s.hook.wroteOp(ops[0], resp.Header.Revision)
		}
		return absent, nil
	}
	resp, err := s.cli.Txn(ctx).Then(ops...).Commit()
	if err != nil {
		return nil, err
	}
	for i, r := range resp.Responses {
		if d := r.GetResponseDeleteRange(); d != nil {
			absent[i] = d.Deleted == 0
		} else if t := r.GetResponseTxn(); t != nil {
			absent[i] = !t.Succeeded
		}
		if !absent[i] {
			s.hook.wroteOp(ops[i], resp.Header.Revision)
		}
	}
	return absent, nil
}
