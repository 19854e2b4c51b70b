package chansem_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
)

// OnWait reports every Acquire that had to wait; one that finds a free slot
// is not reported.
func ExampleSemaphore_OnWait() {
	s := chansem.New(1)
	waits := make(chan sem.WaitEvent, 1)
	s.OnWait(func(e sem.WaitEvent) { waits <- e })

	if err := s.Acquire(context.Background(), 1); err != nil { // free: not reported
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	_ = s.Acquire(ctx, 1) // waits, then times out
	e := <-waits
	fmt.Println(e.N, e.Err, e.Waited() > 0)
	// Output:
	// 1 context deadline exceeded true
}

// A bounded buffer, the classic producer-consumer: one semaphore counts the
// free places and starts full, the other counts the items and starts empty.
func ExampleNewAvailable() {
	const places = 2
	free, items := chansem.New(places), chansem.NewAvailable(places, 0)
	buffer := make(chan int, places)
	go func() {
		for i := range 4 {
			_ = free.Acquire(context.Background(), 1)
			buffer <- i
			items.Release(1)
		}
	}()
	for range 4 {
		_ = items.Acquire(context.Background(), 1)
		fmt.Println(<-buffer)
		free.Release(1)
	}
	// Output:
	// 0
	// 1
	// 2
	// 3
}

// A rendezvous: two goroutines each finish a first half, then wait until the
// other has finished its own before going on. Each has a semaphore with no
// free permit, NewAvailable(1, 0), on which it announces its arrival with
// Release(1); each waits with Acquire on the other's. A Release happens
// before the Acquire it enables, so each sees the other's first half done.
func Example_rendezvous() {
	aArrived, bArrived := chansem.NewAvailable(1, 0), chansem.NewAvailable(1, 0)
	var aHalf, bHalf bool
	report := make(chan string, 2)
	go func() {
		aHalf = true
		aArrived.Release(1)
		_ = bArrived.Acquire(context.Background(), 1)
		report <- fmt.Sprint("A goes on; B's first half done: ", bHalf)
	}()
	go func() {
		bHalf = true
		bArrived.Release(1)
		_ = aArrived.Acquire(context.Background(), 1)
		report <- fmt.Sprint("B goes on; A's first half done: ", aHalf)
	}()
	lines := []string{<-report, <-report}
	slices.Sort(lines)
	fmt.Println(lines[0])
	fmt.Println(lines[1])
	// Output:
	// A goes on; B's first half done: true
	// B goes on; A's first half done: true
}
