package etcdsem

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// How the handle sweeps its keys for ones it no longer tracks (see the
// package's design): at every third of the lease's TTL for sweepWindow
// after a write of unknown outcome, and at every sweepEvery-th in any case.
const (
	sweepWindow = 30 * time.Second
	sweepEvery  = 12
)

// sweeper sweeps stray keys when due, three times per TTL, until the
// handle is closed or stops trusting its lease.
func (s *Semaphore) sweeper() {
	defer s.background.Done()
	period := s.lease.ttl / 3
	t := time.NewTimer(period)
	defer t.Stop()
	for tick := 1; ; tick++ {
		select {
		case <-s.lease.dead:
			return
		case <-t.C:
		}
		if s.sweepDue(tick) {
			if err := s.sweep(); err != nil {
				s.report(err)
			}
		}
		t.Reset(period)
	}
}

// sweepSoon has the sweeper sweep at every tick for a while: a write of
// unknown outcome may land late.
func (s *Semaphore) sweepSoon() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepUntil = time.Now().Add(sweepWindow)
}

func (s *Semaphore) sweepDue(tick int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return tick%sweepEvery == 0 || time.Now().Before(s.sweepUntil)
}

// sweep deletes the keys on the handle's lease that it does not track:
// puts that landed after the delete meant to undo them. The tracked set is
// read after the keys, and a key is tracked before its put is sent, so a
// key in the read that is untracked is one the handle gave up.
func (s *Semaphore) sweep() error {
	ctx, cancel := context.WithTimeout(s.lease.ctx, s.opts.timeout)
	defer cancel()
	resp, err := s.cli.Get(ctx, s.keyBase, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return roundTripErr("sweeping stray keys", err)
	}
	var stray []clientv3.Op
	s.mu.Lock()
	for _, kv := range resp.Kvs {
		if _, ok := s.keys[string(kv.Key)]; !ok {
			stray = append(stray, clientv3.OpDelete(string(kv.Key)))
		}
	}
	s.mu.Unlock()
	for len(stray) > 0 {
		batch := stray[:min(64, len(stray))]
		stray = stray[len(batch):]
		if _, err := s.write(ctx, batch); err != nil {
			return roundTripErr(fmt.Sprintf("deleting %d stray keys", len(batch)), err)
		}
	}
	return nil
}

// startJanitor starts the goroutine that retries pending writes, unless it
// runs already or the handle can no longer be used.
func (s *Semaphore) startJanitor() {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Checked under s.mu, where Close marks the handle closed before it
	// waits for the background goroutines.
	if s.retrying || s.closed || s.lease.err() != nil {
		return
	}
	s.retrying = true
	s.background.Add(1)
	go s.retry()
}

// retry flushes pending writes with growing pauses until none are left or
// the lease ends (Close, or no longer trusted), which takes every key with
// it, so nothing is left behind either way.
func (s *Semaphore) retry() {
	defer s.background.Done()
	pause := 100 * time.Millisecond
	for {
		t := time.NewTimer(pause)
		select {
		case <-s.lease.dead:
			t.Stop()
			s.stopRetrying()
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(s.lease.ctx, s.opts.timeout)
		err := s.sync(ctx)
		cancel()
		s.mu.Lock()
		if len(s.dirty) == 0 {
			s.retrying = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		s.report(err)
		pause = min(2*pause, 2*time.Second)
	}
}

func (s *Semaphore) stopRetrying() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retrying = false
}
