package redissem

import (
	"context"
	"fmt"
)

// Resize sets the size of the semaphore in Redis, for every handle on its
// name, in one round trip bounded by the handle's timeout. Growing admits
// the waiters that now fit, in their order. Shrinking revokes nothing: no
// permit is granted until fewer than the new size are held, and every
// waiting Acquire larger than the new size fails with an error wrapping
// sem.ErrExceedsSize. Other handles learn the new size at their next round
// trip; New with the old size then fails with ErrSizeMismatch. If Redis
// cannot be reached, the size is unchanged and the error goes to the error
// handler. The size lives as long as the name's keys: a name left idle (no
// holder, no waiter) for a day expires, and the next handle to use it
// creates it with the size it last saw. It panics if size is less than 1.
func (s *Semaphore) Resize(size int64) {
	if size < 1 {
		panic(fmt.Sprintf("%s: Resize(%d): size must be at least 1", pkg, size))
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	if _, err := s.ints(s.eval(ctx, resizeScript, false, size)); err != nil {
		s.report(fmt.Errorf("%s: Resize(%d) on %q: %w", pkg, size, s.name, err))
		return
	}
	s.size.Store(size)
}

// info runs the info script ({free, queued requests, permits they ask
// for, size}) and records the size.
func (s *Semaphore) info(ctx context.Context, create bool) ([]int64, error) {
	v, err := s.ints(s.eval(ctx, infoScript, create))
	if err != nil {
		return nil, err
	}
	s.size.Store(v[3])
	return v, nil
}
