package condsem_test

import (
	"context"
	"fmt"

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
