package pitfalls_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"golang.org/x/sync/semaphore"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
)

// A request for more permits than the semaphore has can never succeed.
// golang.org/x/sync/semaphore waits for the context anyway (forever, with
// context.Background); semacat's strategies say so at once.
func TestRequestMoreThanTheSize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		err := semaphore.NewWeighted(4).Acquire(ctx, 5)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, time.Minute, time.Since(start), "x/sync waits out the whole deadline")

		start = time.Now()
		err = chansem.New(4).Acquire(context.Background(), 5)
		assert.ErrorIs(t, err, sem.ErrExceedsSize)
		assert.Zero(t, time.Since(start), "chansem answers at once")
	})
}

// runJob takes cost permits for a job and tells a request that can never run
// apart from one that ran out of time.
func runJob(ctx context.Context, s sem.Semaphore, cost int64, job func()) error {
	if err := s.Acquire(ctx, cost); err != nil {
		if errors.Is(err, sem.ErrExceedsSize) {
			return fmt.Errorf("job of cost %d can never run: %w", cost, err)
		}
		return err
	}
	defer s.Release(cost)
	job()
	return nil
}

// The fix: size requests to fit, and test for sem.ErrExceedsSize to reject
// the ones that cannot.
func Example_requestMoreThanTheSize() {
	s := chansem.New(4)
	for _, cost := range []int64{2, 5, 4} {
		err := runJob(context.Background(), s, cost, func() {})
		fmt.Printf("cost %d: exceeds size: %v\n", cost, errors.Is(err, sem.ErrExceedsSize))
	}
	// Output:
	// cost 2: exceeds size: false
	// cost 5: exceeds size: true
	// cost 4: exceeds size: false
}
