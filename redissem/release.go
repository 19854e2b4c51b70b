package redissem

import (
	"context"
	"errors"
	"fmt"
)

// Release gives back n permits held through this handle, oldest grants
// first, in one round trip bounded by the handle's timeout. It panics if
// that is more than the handle's callers hold (Permits apart), before
// changing anything. The permits leave the handle's books at once. If Redis
// cannot be reached, the handle retries the release in the background, they
// come back when their lease expires at the latest, and the error goes to
// the error handler; so does an error wrapping ErrLeaseLost if Redis no
// longer held one of the grants. Release(0) is a no-op.
func (s *Semaphore) Release(n int64) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	if err := s.release(ctx, "Release", n); err != nil {
		s.report(err)
	}
}

// ReleaseErr is Release that returns the error instead of passing it to the
// error handler: nil when Redis recorded the release, an error wrapping
// ErrLeaseLost when Redis no longer held one of the grants (its lease had
// expired, so its permits may have gone to others meanwhile), otherwise the
// failure of the round trip (bounded by ctx and the handle's timeout), after
// which the handle retries in the background. Either way the permits leave
// the handle at once, as with Release. It panics if n is more than the
// handle's callers hold.
func (s *Semaphore) ReleaseErr(ctx context.Context, n int64) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	return s.release(ctx, "ReleaseErr", n)
}

func (s *Semaphore) release(ctx context.Context, method string, n int64) error {
	checkWeight(method, n)
	pairs, emptied, lost := s.take(n)
	if len(pairs) == 0 {
		return nil
	}
	return s.sendRelease(ctx, method, n, pairs, emptied, lost)
}

// sendRelease sends a release to Redis: pairs for the update script, and
// the ids of the grants it empties, retried in the background if Redis
// cannot be reached. lost says a grant was known lost already.
func (s *Semaphore) sendRelease(ctx context.Context, method string, n int64, pairs []any, emptied []string, lost bool) error {
	missing, err := s.update(ctx, pairs)
	switch {
	case errors.Is(err, ErrStateLost):
		return fmt.Errorf("%s: %s(%d) on %q: %w: %w", pkg, method, n, s.name, ErrLeaseLost, err)
	case err != nil:
		s.retryLater(emptied...)
		return fmt.Errorf("%s: %s(%d) on %q: %w; the handle retries, and the permits return when their lease expires (within %v) at the latest",
			pkg, method, n, s.name, err, s.lease)
	case len(missing) > 0 || lost:
		return fmt.Errorf("%s: %s(%d) on %q: %w: its lease had expired, so its permits may have been granted to others meanwhile",
			pkg, method, n, s.name, ErrLeaseLost)
	}
	return nil
}

// take removes n permits from the handle's books, oldest grants first,
// leaving Permits alone. It returns the update pairs for Redis, the ids of
// the grants it emptied, and whether one of them was known lost. It panics,
// before changing anything, if n is more than held.
func (s *Semaphore) take(n int64) (pairs []any, emptied []string, lost bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n > s.held {
		overRelease(n, s.held)
	}
	s.held -= n
	kept := s.grants[:0]
	for _, g := range s.grants {
		switch {
		case n == 0 || g.permit:
			kept = append(kept, g)
		case g.n > n:
			g.n -= n
			n = 0
			pairs = append(pairs, g.id, g.n)
			lost = lost || g.lost
			kept = append(kept, g)
		default:
			n -= g.n
			pairs = append(pairs, g.id, -1)
			emptied = append(emptied, g.id)
			lost = lost || g.lost
		}
	}
	clear(s.grants[len(kept):])
	s.grants = kept
	return pairs, emptied, lost
}
