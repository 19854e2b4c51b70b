package condsem_test

import (
	"context"
	"fmt"

	"github.com/semacat/sem/condsem"
)

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
