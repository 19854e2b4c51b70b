// Package sleepcond is a flawed recipe kept for teaching, the mutex-guarded
// counting semaphore that waits while holding its mutex, shown failing in
// docs/recipes.md next to condsem, which fixes it. Do not use it.
//
// The recipe: Acquire locks the mutex and, while too few permits are free,
// sleeps a little and looks again, still holding the lock. Release needs the
// same lock to give a permit back, so it waits until the sleeper gives up.
// The permits a waiter needs can never be freed while it waits for them:
// every wait that is not satisfied at once lasts until the waiter's
// deadline, and fails. condsem waits on a sync.Cond instead, whose Wait
// unlocks the mutex while it sleeps and locks it again on waking.
package sleepcond

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Semaphore is the flawed recipe: it sleeps while holding its mutex.
type Semaphore struct {
	mu       sync.Mutex
	size     int64
	held     int64
	poll     time.Duration
	sleepers atomic.Int64 // Acquires in their polling loop
}

// New returns the recipe's semaphore with size permits, all free, which
// looks again every poll while it waits.
func New(size int64, poll time.Duration) *Semaphore {
	return &Semaphore{size: size, poll: poll}
}

// Acquire takes n permits, polling every poll while they are not free, and
// gives up with ctx.Err() once ctx is done.
func (s *Semaphore) Acquire(ctx context.Context, n int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held+n > s.size {
		s.sleepers.Add(1)
		defer s.sleepers.Add(-1)
	}
	for s.held+n > s.size {
		if err := ctx.Err(); err != nil {
			return err
		}
		time.Sleep(s.poll) // BUG: sleeps holding s.mu, so no Release can run
	}
	s.held += n
	return nil
}

// TryAcquire takes n permits if they are free at once.
func (s *Semaphore) TryAcquire(n int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held+n > s.size {
		return false
	}
	s.held += n
	return true
}

// Release gives back n permits; it waits for the mutex like everyone else.
func (s *Semaphore) Release(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held -= n
}

// Waiting reports how many Acquires are in their polling loop, in the
// shape of the strategies' Waiting (the permits they want are not
// counted).
func (s *Semaphore) Waiting() (requests int, permits int64) {
	return int(s.sleepers.Load()), 0
}
