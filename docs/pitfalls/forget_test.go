package pitfalls_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/semacat/sem/chansem"
)

var errNotFound = errors.New("not found")

// lookupLeaky takes a permit and forgets to give it back on the error path.
func lookupLeaky(ctx context.Context, s *chansem.Semaphore, key string) error {
	if err := s.Acquire(ctx, 1); err != nil {
		return err
	}
	if key == "" {
		return errNotFound // BUG: returns still holding the permit
	}
	s.Release(1)
	return nil
}

// lookup defers the Release right after a successful Acquire, so every
// return path gives the permit back.
func lookup(ctx context.Context, s *chansem.Semaphore, key string) error {
	if err := s.Acquire(ctx, 1); err != nil {
		return err
	}
	defer s.Release(1)
	if key == "" {
		return errNotFound
	}
	return nil
}

// Three failed lookups leak all three permits; every later caller waits
// forever, or, with a deadline, waits all of it and finds out that something
// is wrong. In the bubble the minute passes on the simulated clock.
func TestForgottenRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := chansem.New(3)
		for range 3 {
			assert.ErrorIs(t, lookupLeaky(context.Background(), s, ""), errNotFound)
		}
		assert.Zero(t, s.Available(), "free after three failed lookups")

		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		assert.ErrorIs(t, lookupLeaky(ctx, s, "key"), context.DeadlineExceeded)
		assert.Equal(t, time.Minute, time.Since(start), "the next lookup waits out its whole deadline")
		s.Release(3 - s.Available()) // what the leaky lookups kept
	})
}

// The fix: defer s.Release right after the Acquire succeeded.
func Example_deferRelease() {
	s := chansem.New(3)
	for range 3 {
		_ = lookup(context.Background(), s, "")
	}
	fmt.Println("free after three failed lookups:", s.Available())
	fmt.Println("next lookup:", lookup(context.Background(), s, "key"))
	// Output:
	// free after three failed lookups: 3
	// next lookup: <nil>
}
