package spinsem_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/semacat/sem/spinsem"
)

// A bounded worker pool: at most 3 jobs run at once, and acquiring the whole
// size at the end waits for the last of them to finish.
func Example_workerPool() {
	const workers = 3
	s := spinsem.New(workers)
	ctx := context.Background()
	var running, done atomic.Int64
	for range 10 {
		if err := s.Acquire(ctx, 1); err != nil {
			panic(err) // only a done ctx makes Acquire fail
		}
		go func() {
			defer s.Release(1)
			if running.Add(1) > workers {
				panic("more workers than permits")
			}
			time.Sleep(time.Millisecond) // the job
			running.Add(-1)
			done.Add(1)
		}()
	}
	if err := s.Acquire(ctx, workers); err != nil { // wait for all workers
		panic(err)
	}
	fmt.Println("jobs done:", done.Load())
	// Output:
	// jobs done: 10
}

// Bounding the wait with a timeout: Acquire gives up when the context's
// deadline passes, holding nothing.
func ExampleSemaphore_Acquire_timeout() {
	s := spinsem.New(2)
	if !s.TryAcquire(2) { // someone holds every permit
		panic("a fresh semaphore has its permits free")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	err := s.Acquire(ctx, 1)
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	fmt.Println("available:", s.Available())
	s.Release(2)
	fmt.Println("available:", s.Available())
	// Output:
	// true
	// available: 0
	// available: 2
}

// A weighted job scheduler: a job takes as many permits as the memory it
// needs, so large and small jobs share one budget. Starvation mode makes sure
// a large job is not passed forever by a stream of small ones.
func ExampleSemaphore_Acquire_weighted() {
	const budgetMB = 8
	s := spinsem.New(budgetMB)
	ctx := context.Background()
	jobs := []int64{2, 8, 1, 4, 3, 9}
	for _, mb := range jobs {
		err := s.Acquire(ctx, mb)
		if err != nil {
			fmt.Printf("job of %dMB rejected: %v\n", mb, err)
			continue
		}
		go func() {
			defer s.Release(mb)
			time.Sleep(time.Millisecond) // the job
		}()
	}
	_ = s.Acquire(ctx, budgetMB) // wait for every job
	s.Release(budgetMB)
	fmt.Println("available:", s.Available())
	// Output:
	// job of 9MB rejected: spinsem: Acquire(9) can never succeed on a semaphore of size 8; ask for at most 8 permits: sem: request exceeds semaphore size
	// available: 8
}
