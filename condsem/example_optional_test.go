package condsem_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/condsem"
)

// A limit read from configuration changes while in use: a shrink revokes
// nothing, so until enough permits come back none is free.
func ExampleSemaphore_Resize() {
	s := condsem.New(8)
	if !s.TryAcquire(6) {
		panic("fresh semaphore refused 6 permits")
	}
	s.Resize(4)
	fmt.Println("after shrink: size", s.Size(), "available", s.Available())
	s.Release(4)
	fmt.Println("after release: available", s.Available())
	// Output:
	// after shrink: size 4 available -2
	// after release: available 2
}

// At shutdown, Close fails the queued Acquire and every later one, while
// the holder may still give its permit back.
func ExampleFair_Close() {
	s := condsem.NewFair(1)
	if !s.TryAcquire(1) {
		panic("fresh semaphore is full")
	}
	result := make(chan error)
	go func() { result <- s.Acquire(context.Background(), 1) }()
	for requests := 0; requests == 0; requests, _ = s.Waiting() { // until it waits
		time.Sleep(time.Millisecond)
	}
	_ = s.Close()
	fmt.Println("waiter:", errors.Is(<-result, sem.ErrClosed))
	s.Release(1)
	fmt.Println("later:", errors.Is(s.Acquire(context.Background(), 1), sem.ErrClosed))
	// Output:
	// waiter: true
	// later: true
}

// OnWait reports every Acquire that had to wait; one that finds its permits
// free is not reported.
func ExampleSemaphore_OnWait() {
	s := condsem.New(1)
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

// A rendezvous: each goroutine signals its arrival on a semaphore that
// starts with no free permit, and waits for the other's.
func ExampleNewAvailable() {
	aArrived, bArrived := condsem.NewAvailable(1, 0), condsem.NewAvailable(1, 0)
	done := make(chan struct{})
	go func() {
		defer close(done)
		bArrived.Release(1)
		if err := aArrived.Acquire(context.Background(), 1); err != nil {
			panic(err)
		}
	}()
	aArrived.Release(1)
	if err := bArrived.Acquire(context.Background(), 1); err != nil {
		panic(err)
	}
	<-done
	fmt.Println("both arrived")
	// Output:
	// both arrived
}
