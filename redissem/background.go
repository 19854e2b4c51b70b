package redissem

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// dispatch hands the notifications of the handle's own subscription to its
// waiting Acquires.
func (s *Semaphore) dispatch(msgs <-chan *redis.Message) {
	defer s.wg.Done()
	for m := range msgs {
		s.deliver(m.Payload)
	}
}

// deliver hands a notification to the waiting Acquire of its id. One that
// carries no token (see parseNotice) makes the waiter ask Redis instead.
func (s *Semaphore) deliver(payload string) {
	id, token, ok := parseNotice(payload)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.waiters[id]
	switch {
	case w == nil:
	case token == "":
		if len(w.wake) == 0 {
			w.wake <- ""
		}
	default:
		delete(s.waiters, id)
		w.wake <- token // fits (see waiter), and each id gets one token
	}
}

// refresher pushes back the leases of the handle's grants every third of the
// lease, and the queue entries of its waiting Acquires (every poll interval
// while there are any: that also catches a grant whose notification was
// lost), retries releases and withdrawals that did not reach Redis, and
// reports lost leases. While a refresh fails or something waits for a
// retry, it refreshes every twelfth of the lease instead. One round trip
// serves every grant and every waiter of the handle, so a queue of W
// waiters costs each handle one script per interval, not W. It does not close
// the Done channels of grants whose validity ends: the expiry timer does,
// so that a refresh stuck in a round trip cannot delay them.
func (s *Semaphore) refresher() {
	defer s.wg.Done()
	retry := s.lease / 12
	refreshAt := time.Now().Add(s.lease / 3)
	t := time.NewTimer(s.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-s.kick:
			refreshAt = time.Now().Add(retry)
		case <-t.C:
		}
		if !time.Now().Before(refreshAt) {
			refreshAt = time.Now().Add(s.interval())
			if err := s.refresh(); err != nil {
				s.report(fmt.Errorf("%s: refreshing leases on %q: %w", pkg, s.name, err))
				refreshAt = time.Now().Add(retry)
			}
			if s.retrying() {
				refreshAt = time.Now().Add(retry)
			}
		}
		t.Reset(time.Until(refreshAt))
	}
}

// interval is the time between refreshes: a third of the lease, or the
// poll interval while Acquires wait.
func (s *Semaphore) interval() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.waiters) > 0 {
		return s.pollMax
	}
	return s.lease / 3
}

// retrying reports whether releases or withdrawals await a retry.
func (s *Semaphore) retrying() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending) > 0
}

// refresh runs one update of every grant the handle holds and every release
// or withdrawal still pending. A grant Redis still holds is surely valid
// until the lease, less the margin, after the update was sent; with
// WithReplicas, only once the replicas confirmed the update. The round
// trip gives up when the first grant's validity ends: by then that grant's
// Done is closed, and a later answer could not reopen it.
func (s *Semaphore) refresh() error {
	if s.hooks != nil && s.hooks.skipRefresh != nil && s.hooks.skipRefresh() {
		return fmt.Errorf("%w: refresh skipped by the test hook", ErrUnavailable)
	}
	deadline := time.Now().Add(s.timeout)
	s.mu.Lock()
	var args []any
	var sentGrants []*grant
	for _, g := range s.grants {
		if g.lost {
			continue
		}
		args = append(args, g.id, g.n)
		sentGrants = append(sentGrants, g)
		if g.err == nil && g.valid.Before(deadline) {
			deadline = g.valid
		}
	}
	var sent []string
	for id := range s.pending {
		args = append(args, id, 0)
		sent = append(sent, id)
	}
	var waiting []string
	for id := range s.waiters {
		args = append(args, id, -2)
		waiting = append(waiting, id)
	}
	s.mu.Unlock()
	if len(args) == 0 {
		return nil
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	at := time.Now()
	missing, granted, err := s.updateWaiting(ctx, args)
	if errors.Is(err, ErrStateLost) {
		missing = waiting // they learn it when they ask again
		for _, g := range sentGrants {
			missing = append(missing, g.id)
		}
	} else if err != nil {
		return err
	}
	s.wakeWaiters(at, waiting, missing, granted)
	if s.replicas > 0 && len(missing) < len(sentGrants) {
		// A lease is only as long as the replicas know it: a failover to
		// one that missed this refresh would reap the grant a refresh early.
		err = s.confirm(ctx)
	}
	s.refreshed(at, sent, sentGrants, missing, err == nil)
	return err
}

// wakeWaiters hands the waiting Acquires what a refresh sent at the given
// time found: a grant's token, or their entry gone (they send their
// request again), or else that they are still queued.
func (s *Semaphore) wakeWaiters(at time.Time, waiting, missing []string, granted map[string]string) {
	gone := make(map[string]bool, len(missing))
	for _, id := range missing {
		gone[id] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range waiting {
		w := s.waiters[id]
		switch {
		case w == nil:
		case granted[id] != "":
			delete(s.waiters, id)
			w.wake <- granted[id]
		case gone[id]:
			if len(w.wake) == 0 {
				w.wake <- ""
			}
		case at.After(w.since):
			w.since = at
		}
	}
}

// refreshed records the outcome of a refresh sent at the given time; the
// grants Redis still holds are valid for a lease from then if extend.
func (s *Semaphore) refreshed(at time.Time, sent []string, grants []*grant, missing []string, extend bool) {
	gone := make(map[string]bool, len(missing))
	for _, id := range missing {
		gone[id] = true
	}
	s.mu.Lock()
	for _, id := range sent {
		delete(s.pending, id)
	}
	held := make(map[*grant]bool, len(s.grants))
	for _, g := range s.grants {
		held[g] = true
	}
	var lost []error
	for _, g := range grants {
		switch {
		case !held[g]:
			// Released while the refresh was on its way: Redis not knowing
			// it any more is no loss.
		case gone[g.id] && !g.lost:
			g.lost = true
			err := fmt.Errorf("%s: %d permits of %q (token %d): %w; other clients may hold them now",
				pkg, g.n, s.name, g.token, ErrLeaseLost)
			g.end(err)
			lost = append(lost, err)
		case !gone[g.id] && extend:
			g.valid = at.Add(s.lease - s.margin)
		}
	}
	s.mu.Unlock()
	for _, err := range lost {
		s.report(err)
	}
}
