package sleepcond_test

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/semacat/sem/docs/classics/sleepcond"
)

// The holder releases its permit while a waiter polls for it, but the
// waiter sleeps holding the mutex that Release needs: the Release waits
// for the waiter to give up, and the waiter gives up at its deadline.
func Example() {
	s := sleepcond.New(1, 5*time.Millisecond)
	if err := s.Acquire(context.Background(), 1); err != nil {
		panic(err)
	}
	result := make(chan error)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		result <- s.Acquire(ctx, 1)
	}()
	for waiting, _ := s.Waiting(); waiting == 0; waiting, _ = s.Waiting() {
		runtime.Gosched() // until the waiter polls
	}
	s.Release(1) // waits for the mutex until the waiter gives up
	fmt.Println("the waiter got:", <-result)
	// Output:
	// the waiter got: context deadline exceeded
}
