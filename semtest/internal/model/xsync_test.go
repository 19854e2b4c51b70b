package model

import (
	"context"
	"fmt"
	"sync"

	"github.com/semacat/sem"
	"golang.org/x/sync/semaphore"
)

// xsyncFixed is golang.org/x/sync/semaphore.Weighted with the rows of the
// contract it does not keep added in front of it: Acquire(ctx, n) with
// n > size waits for ctx instead of failing at once; Acquire(ctx, 0) and
// TryAcquire(0) queue behind waiters or fail instead of succeeding at once;
// and an over-release panics only after it has driven the count negative,
// so the semaphore admits too much afterwards (newStrict panics first).
func newXSyncFixed(size int64) sem.Semaphore {
	return newStrict(func(size int64) sem.Semaphore {
		return xsyncFront{semaphore.NewWeighted(size), size}
	})(size)
}

// xsyncFront answers the zero and impossible weights before x/sync sees them.
type xsyncFront struct {
	*semaphore.Weighted
	size int64
}

func (x xsyncFront) Acquire(ctx context.Context, n int64) error {
	if n > x.size {
		return fmt.Errorf("xsync: Acquire(%d) exceeds size %d: %w", n, x.size, sem.ErrExceedsSize)
	}
	if n == 0 {
		return ctx.Err()
	}
	return x.Weighted.Acquire(ctx, n)
}

func (x xsyncFront) TryAcquire(n int64) bool {
	return n == 0 || x.Weighted.TryAcquire(n)
}

// strict adds to a semaphore the over-release check it lacks: it counts the
// permits its callers hold and panics before passing on a Release of more.
type strict struct {
	sem.Semaphore
	mu   sync.Mutex
	held int64
}

func newStrict(newSem NewFunc) NewFunc {
	return func(size int64) sem.Semaphore { return &strict{Semaphore: newSem(size)} }
}

func (s *strict) Acquire(ctx context.Context, n int64) error {
	err := s.Semaphore.Acquire(ctx, n)
	if err == nil {
		s.add(n)
	}
	return err
}

func (s *strict) TryAcquire(n int64) bool {
	ok := s.Semaphore.TryAcquire(n)
	if ok {
		s.add(n)
	}
	return ok
}

func (s *strict) Release(n int64) {
	s.add(-n)
	s.Semaphore.Release(n)
}

func (s *strict) add(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held+n < 0 {
		panic(fmt.Sprintf("strict: Release(%d): released more than held (%d held)", -n, s.held))
	}
	s.held += n
}
