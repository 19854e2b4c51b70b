package cancellation_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/weighted"
)

// A context that is never done: context.Background() is the root of every
// other context, and an Acquire given it waits for as long as it takes.
// A context made with WithCancel is done once its cancel function is
// called; its Err then says why.
func Example_cancel() {
	ctx := context.Background()
	fmt.Println("Background done:", ctx.Err() != nil)

	ctx, cancel := context.WithCancel(ctx)
	fmt.Println("before cancel:", ctx.Err())
	cancel() // closes ctx.Done() and sets ctx.Err(); calling it again does nothing
	<-ctx.Done()
	fmt.Println("after cancel:", ctx.Err())
	// Output:
	// Background done: false
	// before cancel: <nil>
	// after cancel: context canceled
}

// A deadline ends a wait that would otherwise last forever: the semaphore's
// only permit is held and never given back, so the Acquire waits until the
// context's deadline, returns its error, and holds nothing.
func Example_timeout() {
	s := chansem.New(1)
	_ = s.Acquire(context.Background(), 1) // the only permit, held throughout

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel() // frees the context's timer even when the wait ends first
	err := s.Acquire(ctx, 1)
	fmt.Println(err)
	fmt.Println("deadline exceeded:", errors.Is(err, context.DeadlineExceeded))
	fmt.Println("free permits:", s.Available())
	// Output:
	// context deadline exceeded
	// deadline exceeded: true
	// free permits: 0
}

// The usual shape of a call: acquire, give up with the context's error if
// it ends first, and release with defer once the work is done. A child
// context ends with its parent: canceling the request's context (the
// client went away) ends the wait of every call made under it.
func Example_request() {
	s := weighted.New(2)
	_ = s.Acquire(context.Background(), 2) // both permits busy
	handle := func(ctx context.Context) error {
		if err := s.Acquire(ctx, 1); err != nil {
			return fmt.Errorf("waiting for a permit: %w", err)
		}
		defer s.Release(1)
		return nil // the work, holding one permit
	}

	request, cancel := context.WithCancel(context.Background())
	call, stop := context.WithTimeout(request, time.Hour) // a child: ends with request
	defer stop()
	errs := make(chan error)
	go func() { errs <- handle(call) }()
	cancel() // the client went away
	fmt.Println(<-errs)
	fmt.Println("free permits:", s.Available())
	// Output:
	// waiting for a permit: context canceled
	// free permits: 0
}

// Shutting down a pool of waiters: one cancel ends every wait under the
// context at once, each returns the context's error, and none of them
// holds a permit afterwards.
func Example_shutdown() {
	s := weighted.New(1)
	_ = s.Acquire(context.Background(), 1)

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { errs[i] = s.Acquire(ctx, 1) })
	}
	cancel()
	wg.Wait()
	for i, err := range errs {
		fmt.Println(i, err)
	}
	s.Release(1)
	fmt.Println("free permits:", s.Available())
	// Output:
	// 0 context canceled
	// 1 context canceled
	// 2 context canceled
	// free permits: 1
}
