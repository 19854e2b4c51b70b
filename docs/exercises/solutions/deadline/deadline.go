// Package deadline is a solution to exercise 9 of docs/exercises.md: a
// worker pool in which every wait for a permit has a deadline, and the
// first wait that fails ends the others.
//
// Each job waits for one permit of the semaphore it is given, so at most
// the semaphore's size run at once. A wait's context is a child of a
// group context, itself a child of the caller's: canceling the caller's
// context ends every wait, and Run cancels the group when a wait fails, so
// that the other waits end at once rather than at their own deadlines.
// A job that holds its permit runs to the end; Run returns when every job
// has either run or given up its wait.
package deadline

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/semacat/sem"
)

// Run runs every job, each after it has acquired one permit of s, and
// releases the permit when the job returns. Each wait ends after timeout,
// or when ctx is done, or when another wait has failed. Run returns the
// first wait's error, wrapped with the job's index, or nil when every job
// ran.
func Run(ctx context.Context, s sem.Semaphore, jobs []func(), timeout time.Duration) error {
	group, cancelGroup := context.WithCancel(ctx)
	defer cancelGroup()
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
		cancelGroup() // the other waits end now, not at their deadlines
	}
	for i, job := range jobs {
		wg.Go(func() {
			if err := acquire(group, s, timeout); err != nil {
				fail(fmt.Errorf("deadline: job %d: %w", i, err))
				return
			}
			defer s.Release(1)
			job()
		})
	}
	wg.Wait()
	return first
}

// acquire waits for one permit of s until timeout, or until ctx is done.
func acquire(ctx context.Context, s sem.Semaphore, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel() // no timer outlives its wait
	return s.Acquire(ctx, 1)
}
