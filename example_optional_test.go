package sem_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/semacat/sem"
	"github.com/semacat/sem/spinsem"
	"github.com/semacat/sem/weighted"
)

// Code that holds a sem.Semaphore asks it for the optional interfaces with a
// type assertion, as io.Copy asks a Reader for io.WriterTo, so the same code
// resizes, closes and observes every strategy that offers them.
func Example_optional() {
	strategies := []struct {
		name string
		s    sem.Semaphore
	}{{"weighted", weighted.New(4)}, {"spinsem", spinsem.New(4)}}
	for _, strategy := range strategies {
		s := strategy.s
		r, canResize := s.(sem.Resizer)
		c, canClose := s.(sem.Closer)
		o, canObserve := s.(sem.Observer)
		if !canResize || !canClose || !canObserve {
			fmt.Println(strategy.name, "cannot be resized, closed and observed")
			continue
		}
		resizeCloseObserve(strategy.name, s, r, c, o)
	}
	// Output:
	// weighted: 1 waiting for 2 permits
	// weighted: after Resize(6), the waiting Acquire(2) returned <nil>
	// weighted: OnWait saw an Acquire(2) end with <nil>
	// weighted: after Resize(2) with 6 held, TryAcquire(1) = false
	// weighted: after Close, Acquire fails with ErrClosed: true
	// spinsem: 1 waiting for 2 permits
	// spinsem: after Resize(6), the waiting Acquire(2) returned <nil>
	// spinsem: OnWait saw an Acquire(2) end with <nil>
	// spinsem: after Resize(2) with 6 held, TryAcquire(1) = false
	// spinsem: after Close, Acquire fails with ErrClosed: true
}

// resizeCloseObserve grows a full semaphore to serve a waiter, shrinks it
// below what is held, and closes it, watching the wait through o.
func resizeCloseObserve(strategy string, s sem.Semaphore, r sem.Resizer, c sem.Closer, o sem.Observer) {
	ctx := context.Background()
	waits := make(chan sem.WaitEvent, 1)
	o.OnWait(func(e sem.WaitEvent) { waits <- e })
	defer o.OnWait(nil)

	if err := s.Acquire(ctx, 4); err != nil { // every permit: the next Acquire waits
		fmt.Println(err)
		return
	}
	granted := make(chan error)
	go func() { granted <- s.Acquire(ctx, 2) }()
	for requests, _ := o.Waiting(); requests == 0; requests, _ = o.Waiting() {
		runtime.Gosched()
	}
	requests, permits := o.Waiting()
	fmt.Printf("%s: %d waiting for %d permits\n", strategy, requests, permits)

	r.Resize(6) // two more permits: the waiter gets them
	fmt.Printf("%s: after Resize(6), the waiting Acquire(2) returned %v\n", strategy, <-granted)
	e := <-waits
	fmt.Printf("%s: OnWait saw an Acquire(%d) end with %v\n", strategy, e.N, e.Err)

	r.Resize(2) // nothing held is revoked; nothing is free until fewer than 2 are held
	fmt.Printf("%s: after Resize(2) with 6 held, TryAcquire(1) = %v\n", strategy, s.TryAcquire(1))

	if err := c.Close(); err != nil {
		fmt.Println(err)
	}
	err := s.Acquire(ctx, 1)
	fmt.Printf("%s: after Close, Acquire fails with ErrClosed: %v\n", strategy, errors.Is(err, sem.ErrClosed))
	s.Release(4) // holders still give back what they hold
	s.Release(2)
}
