package intro_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/weighted"
)

// A counting semaphore of size 3: Acquire is Dijkstra's P, Release his V,
// and the count of free permits never goes below zero nor above the size.
func Example_counting() {
	ctx := context.Background()
	s := weighted.New(3)
	fmt.Println("free at the start:", s.Available())

	_ = s.Acquire(ctx, 1) // P: takes a permit, or waits for one
	_ = s.Acquire(ctx, 1)
	fmt.Println("free after two P:", s.Available())

	_ = s.Acquire(ctx, 1)
	fmt.Println("a fourth P would wait; TryAcquire says:", s.TryAcquire(1))

	s.Release(1) // V: gives a permit back, waking a waiter if there is one
	fmt.Println("free after one V:", s.Available())
	s.Release(2)
	// Output:
	// free at the start: 3
	// free after two P: 1
	// a fourth P would wait; TryAcquire says: false
	// free after one V: 1
}

// The mutex pattern: a binary semaphore (size 1) around the critical
// section, so that one goroutine at a time updates the shared counter.
func Example_mutex() {
	ctx := context.Background()
	mutex := weighted.New(1)
	counter := 0 // shared, guarded by mutex
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 1000 {
				_ = mutex.Acquire(ctx, 1)
				counter++ // the critical section
				mutex.Release(1)
			}
		})
	}
	wg.Wait()
	fmt.Println(counter)
	// Output: 4000
}

// The signalling pattern: a semaphore that starts with no permit free.
// The worker computes, then releases; main acquires, which waits until the
// worker has released, and then reads what the worker wrote.
func Example_signal() {
	ctx := context.Background()
	done := weighted.NewAvailable(1, 0) // nothing free: the signal is not given yet
	var result int                      // written by the worker before its Release
	go func() {
		result = 6 * 7
		done.Release(1) // signal: "the result is ready"
	}()
	_ = done.Acquire(ctx, 1) // wait for the signal
	fmt.Println(result)
	// Output: 42
}

// The multiplex pattern: a semaphore of size 3 lets at most 3 goroutines
// into a section at once, however many want in.
func Example_multiplex() {
	ctx := context.Background()
	room := chansem.New(3)
	var inside, most atomic.Int64
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			_ = room.Acquire(ctx, 1)
			now := inside.Add(1)
			for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
			}
			inside.Add(-1)
			room.Release(1)
		})
	}
	wg.Wait()
	fmt.Println("never more than 3 inside:", most.Load() <= 3)
	// Output: never more than 3 inside: true
}
