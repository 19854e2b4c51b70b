package spinsem_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/semacat/sem"
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
	// job of 9MB rejected: spinsem: Acquire(9) on size 8: sem: request exceeds semaphore size
	// available: 8
}

// An adaptive limit: Resize raises the limit while permits are held, and
// lowers it without taking any back; the smaller limit holds once enough
// permits come back.
func ExampleSemaphore_Resize() {
	s := spinsem.New(2)
	s.TryAcquire(2)
	s.Resize(4) // the backend is healthy: allow more
	fmt.Println("size:", s.Size(), "available:", s.Available())
	s.Resize(1) // the backend is struggling: allow fewer
	fmt.Println("size:", s.Size(), "available:", s.Available())
	s.Release(1)
	fmt.Println("after one release:", s.TryAcquire(1))
	s.Release(1)
	fmt.Println("after both:", s.TryAcquire(1))
	err := s.Acquire(context.Background(), 2)
	fmt.Println(errors.Is(err, sem.ErrExceedsSize))
	// Output:
	// size: 4 available: 2
	// size: 1 available: -1
	// after one release: false
	// after both: true
	// true
}

// Shutting down: Close fails the Acquire that waits and every later one,
// while holders may still give back what they hold.
func ExampleSemaphore_Close() {
	s := spinsem.New(1)
	s.TryAcquire(1)
	errc := make(chan error)
	go func() { errc <- s.Acquire(context.Background(), 1) }()
	for requests, _ := s.Waiting(); requests == 0; requests, _ = s.Waiting() {
		runtime.Gosched() // until the Acquire waits
	}
	s.Close()
	fmt.Println(errors.Is(<-errc, sem.ErrClosed))
	s.Release(1)
	fmt.Println(s.TryAcquire(1), errors.Is(s.Acquire(context.Background(), 1), sem.ErrClosed))
	// Output:
	// true
	// false true
}

// Observing waits: Waiting tells how many Acquire calls wait and for how
// many permits, and OnWait's function hears of each wait as it ends.
func ExampleSemaphore_OnWait() {
	s := spinsem.New(3)
	waits := make(chan sem.WaitEvent, 1)
	s.OnWait(func(e sem.WaitEvent) { waits <- e })
	s.TryAcquire(3)
	done := make(chan error)
	go func() { done <- s.Acquire(context.Background(), 2) }()
	for requests, _ := s.Waiting(); requests == 0; requests, _ = s.Waiting() {
		runtime.Gosched() // until the Acquire waits
	}
	requests, permits := s.Waiting()
	fmt.Println("waiting:", requests, "asking for:", permits)
	s.Release(2)
	e := <-waits
	fmt.Println("waited for:", e.N, "event error:", e.Err, "Acquire error:", <-done)
	// Output:
	// waiting: 1 asking for: 2
	// waited for: 2 event error: <nil> Acquire error: <nil>
}

// A signalling semaphore: NewAvailable(1, 0) starts with no free permit, so
// Acquire waits until another goroutine signals with Release(1).
func ExampleNewAvailable() {
	ready := spinsem.NewAvailable(1, 0)
	var result string
	go func() {
		result = "computed"
		ready.Release(1) // signal
	}()
	if err := ready.Acquire(context.Background(), 1); err != nil { // wait
		panic(err)
	}
	fmt.Println(result)
	// Output:
	// computed
}
