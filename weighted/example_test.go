package weighted_test

import (
	"context"
	"fmt"
	"time"

	"github.com/semacat/sem/weighted"
)

// A scheduler runs jobs of different sizes within a fixed budget: here 4
// workers' worth of memory, with each job taking as many units as it needs.
// Jobs are admitted in submission order, so a big job is never starved by a
// stream of small ones. Acquiring the whole budget at the end waits for every
// job to finish.
func Example_scheduler() {
	const budget = 4
	jobs := []struct {
		name   string
		weight int64
	}{
		{"resize images", 2}, {"build index", 4}, {"send mail", 1},
		{"compress logs", 3}, {"ping", 1},
	}
	s := weighted.New(budget)
	ctx := context.Background()
	results := make([]string, len(jobs))
	for i, job := range jobs {
		// Acquire before starting the goroutine: submission order is
		// admission order.
		if err := s.Acquire(ctx, job.weight); err != nil {
			fmt.Println("not scheduled:", err)
			continue
		}
		go func() {
			defer s.Release(job.weight)
			results[i] = fmt.Sprintf("%-13s used %d of %d units", job.name, job.weight, budget)
		}()
	}
	if err := s.Acquire(ctx, budget); err != nil { // wait for every job
		panic(err)
	}
	for _, r := range results {
		fmt.Println(r)
	}
	// Output:
	// resize images used 2 of 4 units
	// build index   used 4 of 4 units
	// send mail     used 1 of 4 units
	// compress logs used 3 of 4 units
	// ping          used 1 of 4 units
}

// A request that cannot be served in time gives up with the context's error
// and leaves the semaphore exactly as it found it.
func ExampleSemaphore_Acquire_timeout() {
	s := weighted.New(2)
	if !s.TryAcquire(2) { // someone holds every permit
		panic("fresh semaphore is full")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	err := s.Acquire(ctx, 1)
	fmt.Println("Acquire:", err)
	fmt.Println("available:", s.Available())

	s.Release(2)
	fmt.Println("available after release:", s.Available())
	// Output:
	// Acquire: context deadline exceeded
	// available: 0
	// available after release: 2
}

// Requests larger than the semaphore fail at once instead of waiting
// forever.
func ExampleSemaphore_Acquire_exceedsSize() {
	s := weighted.New(3)
	err := s.Acquire(context.Background(), 5)
	fmt.Println(err)
	// Output:
	// weighted: Acquire(5) on size 3: sem: request exceeds semaphore size
}
