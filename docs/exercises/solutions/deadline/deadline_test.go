package deadline_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/exercises/solutions/deadline"
	"github.com/semacat/sem/weighted"
)

// timeout is every wait's deadline in the tests; on the bubble's clock it
// costs no real time.
const timeout = 30 * time.Second

// blockingJobs returns n jobs that each count themselves in ran and then
// block until release is closed.
func blockingJobs(n int, ran *atomic.Int32, release <-chan struct{}) []func() {
	jobs := make([]func(), n)
	for i := range jobs {
		jobs[i] = func() {
			ran.Add(1)
			<-release
		}
	}
	return jobs
}

// start runs the pool in a goroutine of its own and returns its error's
// channel.
func start(ctx context.Context, s sem.Semaphore, jobs []func()) <-chan error {
	errc := make(chan error, 1)
	go func() { errc <- deadline.Run(ctx, s, jobs, timeout) }()
	return errc
}

// waiting is how many Acquire calls wait on s.
func waiting(s *weighted.Semaphore) int {
	n, _ := s.Waiting()
	return n
}

func TestEveryJobRunsWithAtMostSizeAtOnce(t *testing.T) {
	requireAsked(t)
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(2)
		var running, most, ran atomic.Int32
		jobs := make([]func(), 5)
		for i := range jobs {
			jobs[i] = func() {
				now := running.Add(1)
				for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
				}
				time.Sleep(time.Second)
				running.Add(-1)
				ran.Add(1)
			}
		}
		begin := time.Now()
		require.NoError(t, deadline.Run(t.Context(), s, jobs, timeout))
		assert.EqualValues(t, 5, ran.Load())
		assert.EqualValues(t, 2, most.Load(), "at most the semaphore's size at once")
		assert.Equal(t, 3*time.Second, time.Since(begin), "five jobs of a second, two at a time")
		assert.Equal(t, s.Size(), s.Available())
	})
}

// Step 2: one job holds the only permit until the test lets it go; the
// other's wait ends at exactly its deadline, and that job never runs.
func TestWaitEndsAtItsDeadline(t *testing.T) {
	requireAsked(t)
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(1)
		var ran atomic.Int32
		release := make(chan struct{})
		begin := time.Now()
		errc := start(t.Context(), s, blockingJobs(2, &ran, release))

		time.Sleep(timeout - time.Nanosecond)
		synctest.Wait()
		assert.Equal(t, 1, waiting(s), "a nanosecond before the deadline, one job still waits")

		time.Sleep(time.Nanosecond)
		synctest.Wait()
		assert.Equal(t, 0, waiting(s), "at the deadline, its wait has ended")
		assert.EqualValues(t, 1, ran.Load(), "the job whose wait failed must not run")

		close(release)
		err := <-errc
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, timeout, time.Since(begin), "Run returned when the running job did, at the deadline")
		assert.Equal(t, s.Size(), s.Available(), "every permit is free afterwards")
	})
}

// Step 3: canceling the caller's context ends every wait at once, on the
// bubble's clock, long before their deadlines.
func TestCancelEndsEveryWait(t *testing.T) {
	requireAsked(t)
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(1)
		var ran atomic.Int32
		release := make(chan struct{})
		ctx, cancel := context.WithCancel(t.Context())
		begin := time.Now()
		errc := start(ctx, s, blockingJobs(3, &ran, release))
		synctest.Wait()
		require.Equal(t, 2, waiting(s), "one job runs, two wait")

		cancel()
		synctest.Wait()
		assert.Equal(t, 0, waiting(s), "the cancellation ended both waits")

		close(release)
		err := <-errc
		assert.ErrorIs(t, err, context.Canceled)
		assert.EqualValues(t, 1, ran.Load(), "the jobs whose waits were canceled must not run")
		assert.Zero(t, time.Since(begin), "nothing waited for a deadline")
		assert.Equal(t, s.Size(), s.Available())
	})
}

// errUnreachable stands for a wait that fails before its deadline, as a
// distributed semaphore's does when its server cannot be reached.
var errUnreachable = errors.New("semaphore server unreachable")

// failing is a semaphore whose Acquire fails with errUnreachable, at once,
// on its call number failCall; the other calls go to the semaphore inside.
type failing struct {
	*weighted.Semaphore
	failCall int32
	calls    atomic.Int32
}

func (f *failing) Acquire(ctx context.Context, n int64) error {
	if f.calls.Add(1) == f.failCall {
		return errUnreachable
	}
	return f.Semaphore.Acquire(ctx, n)
}

// Step 1: the first wait that fails ends the others at once, not at their
// own deadlines. Without the cancellation, Run would return the same error,
// but only when the other waits' deadlines had passed.
func TestFirstFailureEndsTheOtherWaits(t *testing.T) {
	requireAsked(t)
	synctest.Test(t, func(t *testing.T) {
		inner := weighted.New(1)
		require.True(t, inner.TryAcquire(1), "the test holds the only permit: every job must wait")
		s := &failing{Semaphore: inner, failCall: 2}
		var ran atomic.Int32
		jobs := []func(){func() { ran.Add(1) }, func() { ran.Add(1) }, func() { ran.Add(1) }}

		begin := time.Now()
		err := deadline.Run(t.Context(), s, jobs, timeout)
		assert.ErrorIs(t, err, errUnreachable, "the first failure is returned, not the cancellations it caused")
		assert.Zero(t, time.Since(begin), "the other waits ended with the failure, not at their deadlines")
		assert.Zero(t, ran.Load())
		assert.EqualValues(t, 3, s.calls.Load(), "every job waited")

		inner.Release(1)
		assert.Equal(t, inner.Size(), inner.Available())
	})
}
