package etcdsem

import (
	"time"
)

// Every handle the tests make carries a hook.
func init() { newTestHook = func() *testHook { return &testHook{} } }

// SafetyMargin is the margin Done keeps before sent + TTL.
func SafetyMargin(ttl time.Duration) time.Duration { return safetyMargin(ttl) }

// Settled reports whether every call on s has returned or is parked on a
// watch, with a live context, that has seen every write s made that
// concerns it (to the queue if it watches the queue, else to the key it
// watches): nothing on this handle can move until someone acts.
func (s *Semaphore) Settled() bool {
	h := s.hook
	if h.busy.Load() != 0 {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range h.waiting {
		if p.ctx.Err() != nil || h.lagging(p) {
			return false
		}
	}
	return h.busy.Load() == 0
}

// OnEnqueue makes every enqueue of s call f with its key first; if f
// returns an error, the enqueue is not sent and fails with it, as if its
// outcome were unknown.
func (s *Semaphore) OnEnqueue(f func(key string) error) { s.hook.enqueueFault = f }

// LoseReply makes every write-back of s that succeeded fail with the
// error f returns, if any, as if its reply were lost.
func (s *Semaphore) LoseReply(f func() error) { s.hook.lostReply = f }

// BeforeConfirm makes s call f when a watch says a waiting key fits, before
// the key's place is read again.
func (s *Semaphore) BeforeConfirm(f func(key string)) { s.hook.beforeConfirm = f }

// BeforeSizeEvent makes the size watch of s call f before it passes on an
// event.
func (s *Semaphore) BeforeSizeEvent(f func()) { s.hook.beforeSizeEvent.Store(&f) }

// BeforeAdmit makes s call f when a key holds, before the grant is reported.
func (s *Semaphore) BeforeAdmit(f func()) { s.hook.beforeAdmit = f }

// PauseKeepAlive stops (true) or resumes (false) the keep-alives of the
// session of s.
func (s *Semaphore) PauseKeepAlive(paused bool) { s.session.hook.pauseRefresh.Store(paused) }

// Tracked reports whether s tracks key.
func (s *Semaphore) Tracked(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.keys[key]
	return ok
}

// SweepScheduled reports whether s sweeps its keys at every keep-alive
// for now, as it does after a write of unknown outcome.
func (s *Semaphore) SweepScheduled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Now().Before(s.sweepUntil)
}

// Sweep deletes the keys on the lease of s, under its own key prefix, that
// s does not track, as its background sweeps do.
func (s *Semaphore) Sweep() error { return s.sweep() }

// MoveWallClock moves the wall clock that the lease of s reads ahead by d,
// leaving the monotonic clock alone, as a suspend of the machine for d
// does.
func (s *Semaphore) MoveWallClock(d time.Duration) { s.lease.hook.wallAhead.Add(int64(d)) }

// Watches returns how many watches the waiters of s have started.
func (s *Semaphore) Watches() int64 { return s.hook.watches.Load() }
