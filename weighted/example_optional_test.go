package weighted_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/weighted"
)

// An adaptive limit shrinks under pressure without revoking what is held:
// until enough permits come back, none is free.
func ExampleSemaphore_Resize() {
	s := weighted.New(8)
	if !s.TryAcquire(6) {
		panic("fresh semaphore refused 6 permits")
	}
	s.Resize(4)
	fmt.Println("after shrink: size", s.Size(), "available", s.Available())
	s.Release(4)
	fmt.Println("after release: available", s.Available())
	s.Resize(6)
	fmt.Println("after grow: size", s.Size(), "available", s.Available())
	// Output:
	// after shrink: size 4 available -2
	// after release: available 2
	// after grow: size 6 available 4
}

// At shutdown, Close fails the waiting Acquire and every later one, while
// the holder may still give its permit back.
func ExampleSemaphore_Close() {
	s := weighted.New(1)
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

// A signalling semaphore starts with no free permit: Acquire waits until
// another goroutine signals with Release.
func ExampleNewAvailable() {
	ready := weighted.NewAvailable(1, 0)
	go func() {
		fmt.Println("producer: data ready")
		ready.Release(1)
	}()
	if err := ready.Acquire(context.Background(), 1); err != nil {
		panic(err)
	}
	fmt.Println("consumer: got it")
	// Output:
	// producer: data ready
	// consumer: got it
}

// An adaptive limit follows the latency it observes: while the backend
// answers within its target and calls queue for permits, the limit grows by
// one; when the backend slows down, it halves, revoking no permit a call in
// flight holds. Waiting tells whether calls queue; OnWait reports each wait
// as it ends, for a metric of queueing time.
func Example_adaptiveLimit() {
	const target = 100 * time.Millisecond
	s := weighted.New(2)
	waits := make(chan sem.WaitEvent, 1)
	s.OnWait(func(e sem.WaitEvent) { waits <- e })
	adapt := func(latency time.Duration) {
		requests, _ := s.Waiting()
		old := s.Size()
		switch {
		case latency > target:
			s.Resize(max(1, old/2)) // back off fast
		case requests > 0:
			s.Resize(old + 1) // healthy and in demand: grow slowly
		}
		fmt.Printf("backend %v, %d queued: limit %d -> %d\n", latency, requests, old, s.Size())
	}

	if !s.TryAcquire(2) { // two calls in flight
		panic("fresh semaphore refused 2 permits")
	}
	served := make(chan error)
	go func() { served <- s.Acquire(context.Background(), 1) }() // a third queues
	for requests := 0; requests == 0; requests, _ = s.Waiting() {
		time.Sleep(time.Millisecond)
	}
	adapt(20 * time.Millisecond) // the growth serves the queued call
	fmt.Println("queued call:", <-served, "waited:", (<-waits).Waited() > 0)
	adapt(300 * time.Millisecond)
	fmt.Println("a new call may start:", s.TryAcquire(1))
	s.Release(3) // the calls in flight finish
	adapt(40 * time.Millisecond)
	fmt.Println("a new call may start:", s.TryAcquire(1))
	// Output:
	// backend 20ms, 1 queued: limit 2 -> 3
	// queued call: <nil> waited: true
	// backend 300ms, 0 queued: limit 3 -> 1
	// a new call may start: false
	// backend 40ms, 0 queued: limit 1 -> 1
	// a new call may start: true
}
