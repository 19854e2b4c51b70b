package classics_test

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/semacat/sem/docs/classics"
	"github.com/semacat/sem/weighted"
)

// A producer makes five items faster than a consumer can use them; the
// buffer of two makes the producer wait, and the items arrive in order.
func ExampleBuffer() {
	b := classics.NewBuffer[string](2)
	ctx := context.Background()
	go func() {
		for _, v := range []string{"flour", "eggs", "milk", "sugar", "done"} {
			if err := b.Put(ctx, v); err != nil {
				panic(err)
			}
		}
	}()
	for {
		v, err := b.Take(ctx)
		if err != nil {
			panic(err)
		}
		fmt.Println("took", v)
		if v == "done" {
			break
		}
	}
	// Output:
	// took flour
	// took eggs
	// took milk
	// took sugar
	// took done
}

// Three readers share the lock; the writer waits for all of them and then
// has it alone. On weighted, a reader that comes after the writer would
// queue behind it.
func ExampleRWLock() {
	l := classics.NewRWLock(weighted.New(3))
	ctx := context.Background()
	for range 3 {
		if err := l.RLock(ctx); err != nil {
			panic(err)
		}
	}
	wrote := make(chan struct{})
	go func() {
		if err := l.Lock(ctx); err != nil {
			panic(err)
		}
		fmt.Println("writer: alone with the data")
		l.Unlock()
		close(wrote)
	}()
	for i := range 3 {
		fmt.Printf("reader %d: done\n", i)
		l.RUnlock()
	}
	<-wrote
	// Output:
	// reader 0: done
	// reader 1: done
	// reader 2: done
	// writer: alone with the data
}

// Three workers compute a step each round; nobody starts round 2 before
// everyone has finished round 1.
func ExampleBarrier() {
	const workers = 3
	b := classics.NewBarrier(workers, func(size, available int64) classics.Sized {
		return weighted.NewAvailable(size, available)
	})
	var mu sync.Mutex
	var log []string
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for round := 1; round <= 2; round++ {
				mu.Lock()
				log = append(log, fmt.Sprintf("round %d: worker %d", round, w))
				mu.Unlock()
				b.Wait()
			}
		})
	}
	wg.Wait()
	// Within a round the order varies; the rounds never mix.
	slices.Sort(log[:workers])
	slices.Sort(log[workers:])
	for _, line := range log {
		fmt.Println(line)
	}
	// Output:
	// round 1: worker 0
	// round 1: worker 1
	// round 1: worker 2
	// round 2: worker 0
	// round 2: worker 1
	// round 2: worker 2
}

// Two goroutines each prepare their half, meet, then use the other's half.
func ExampleRendezvous() {
	r := classics.NewRendezvous()
	ctx := context.Background()
	var a, b string
	done := make(chan struct{})
	go func() {
		defer close(done)
		b = "B's half"
		if err := r.B(ctx); err != nil {
			panic(err)
		}
		fmt.Println("B sees", a)
	}()
	a = "A's half"
	if err := r.A(ctx); err != nil {
		panic(err)
	}
	<-done
	fmt.Println("A sees", b)
	// Output:
	// B sees A's half
	// A sees B's half
}
