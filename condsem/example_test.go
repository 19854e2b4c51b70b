package condsem_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/semacat/sem/condsem"
)

// A bounded worker pool: at most three jobs run at once, and acquiring
// every permit at the end waits until the last worker has finished.
func Example_workerPool() {
	const workers = 3
	s := condsem.New(workers)
	ctx := context.Background()

	squares := make([]int, 8)
	for i := range squares {
		if err := s.Acquire(ctx, 1); err != nil {
			fmt.Println("acquire:", err)
			return
		}
		go func() {
			defer s.Release(1)
			squares[i] = i * i
		}()
	}
	if err := s.Acquire(ctx, workers); err != nil {
		fmt.Println("wait for workers:", err)
		return
	}
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25 36 49]
}

// Giving up after a timeout: the waiter returns the context's error and
// leaves the semaphore exactly as it found it.
func Example_timeout() {
	s := condsem.New(1)
	s.TryAcquire(1) // someone holds the only permit

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	err := s.Acquire(ctx, 1)
	fmt.Println(err)
	fmt.Println(errors.Is(err, context.DeadlineExceeded), s.Available())

	s.Release(1)
	fmt.Println(s.Available())
	// Output:
	// context deadline exceeded
	// true 0
	// 1
}

// A weighted job scheduler with a budget of 4 units: heavier jobs take more
// permits. With the fair variant a heavy job, once it waits, is served
// before any job that arrives after it, so a stream of light jobs cannot
// hold it back forever.
func ExampleNewFair() {
	const budget = 4
	s := condsem.NewFair(budget)
	ctx := context.Background()

	jobs := []struct {
		name   string
		weight int64
	}{{"index", 1}, {"resize", 2}, {"rebuild", 4}, {"ping", 1}, {"thumbnail", 2}}
	var mu sync.Mutex
	var ran []string
	for _, j := range jobs {
		if err := s.Acquire(ctx, j.weight); err != nil {
			fmt.Println(j.name, err)
			continue
		}
		go func() {
			defer s.Release(j.weight)
			mu.Lock()
			ran = append(ran, fmt.Sprintf("%s/%d", j.name, j.weight))
			mu.Unlock()
		}()
	}
	// The whole budget is free only once every job has finished.
	if err := s.Acquire(ctx, budget); err != nil {
		fmt.Println("wait for jobs:", err)
		return
	}
	slices.Sort(ran)
	fmt.Println(ran)

	// Asking for more than the budget fails at once, whatever is free.
	fmt.Println(s.Acquire(ctx, budget+1))
	// Output:
	// [index/1 ping/1 rebuild/4 resize/2 thumbnail/2]
	// condsem: Acquire(5) on size 4: sem: request exceeds semaphore size
}
