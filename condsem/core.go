package condsem

import (
	"sync"
	"sync/atomic"

	"github.com/semacat/sem/internal/check"
)

// core is what both variants keep: the permits held and the size under one
// mutex, the condition variable their waiters park on, the closed flag and
// the function installed by OnWait. Semaphore and Fair embed it and differ
// in who may take free permits and whom a change wakes.
type core struct {
	mu    sync.Mutex
	cond  sync.Cond    // waiters; cond.L is &mu
	size  atomic.Int64 // stored only under mu
	limit int64        // size, or 0 once closed: free permits are limit-cur
	cur   int64        // permits held

	closed bool
	hook   waitHook
}

// init sets s up with size permits of which available are free.
func (s *core) init(size, available int64) {
	s.limit, s.cur = size, size-available
	s.size.Store(size)
	s.cond.L = &s.mu
}

// Size returns the total number of permits.
func (s *core) Size() int64 { return s.size.Load() }

// zeroWeight returns the error of Acquire(ctx, 0) when ctx is not done: nil,
// or the closed error once the semaphore is closed.
func (s *core) zeroWeight() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return check.Closed(pkg, 0)
	}
	return nil
}

// Close fails every waiting Acquire, and every later one, with an error
// wrapping sem.ErrClosed; TryAcquire fails from then on. Release is still
// accepted, so holders can give back what they hold. Close is idempotent
// and always returns nil.
func (s *core) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed, s.limit = true, 0
	s.cond.Broadcast()
	return nil
}
