package pitfalls_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/semacat/sem/chansem"
)

const (
	philosophers = 5
	patience     = time.Second // how long dinner may last
)

// leftFirst is the natural order: philosopher i takes fork i, then fork i+1.
func leftFirst(i int) (first, second int) {
	return i, (i + 1) % philosophers
}

// lowerFirst is the cure: every philosopher takes the lower-numbered of its
// two forks first. The last philosopher now reaches for fork 0 first, so no
// cycle of waiting can close.
func lowerFirst(i int) (first, second int) {
	a, b := leftFirst(i)
	return min(a, b), max(a, b)
}

// dine seats the philosophers, one fork (a semaphore of size 1) between each
// two, and reports how many ate, how many gave up waiting for a fork, and
// how long dinner lasted on the bubble's simulated clock.
func dine(order func(i int) (first, second int)) (ate, gaveUp int64, took time.Duration) {
	forks := make([]*chansem.Semaphore, philosophers)
	for i := range forks {
		forks[i] = chansem.New(1)
	}
	// One deadline for the whole table: when it passes, every philosopher
	// still waiting gives up at the same instant, so none of them can take
	// the fork of one who gave up and eat after the deadline.
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	var eaten, quit atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for i := range philosophers {
		wg.Go(func() {
			a, b := order(i)
			if forks[a].Acquire(ctx, 1) != nil {
				quit.Add(1)
				return
			}
			defer forks[a].Release(1)
			time.Sleep(time.Millisecond) // by now every philosopher holds a fork
			if forks[b].Acquire(ctx, 1) != nil {
				quit.Add(1)
				return
			}
			defer forks[b].Release(1)
			time.Sleep(10 * time.Millisecond) // eat
			eaten.Add(1)
		})
	}
	wg.Wait()
	return eaten.Load(), quit.Load(), time.Since(start)
}

// Taking the left fork first, every philosopher holds one fork and waits for
// the other forever: a deadlock, noticed only when the timeout fires.
func TestPhilosophersDeadlock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ate, gaveUp, took := dine(leftFirst)
		assert.Equal(t, int64(0), ate)
		assert.Equal(t, int64(philosophers), gaveUp)
		assert.Equal(t, patience, took, "the deadlock ends only by the timeout")
	})
}

// Taking the forks in one global order, everyone eats.
func TestPhilosophersOrdered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ate, gaveUp, took := dine(lowerFirst)
		assert.Equal(t, int64(philosophers), ate)
		assert.Equal(t, int64(0), gaveUp)
		assert.Less(t, took, patience)
	})
}
