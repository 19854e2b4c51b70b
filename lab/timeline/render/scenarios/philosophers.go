package scenarios

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/lab/timeline"
)

// The dining philosophers, as in docs/pitfalls/philosophers_test.go: one
// fork (a semaphore of size 1) between each two, one deadline for the
// whole table.
const (
	seats    = 5
	patience = time.Second
)

// leftFirst is the natural order: philosopher i takes fork i, then i+1.
func leftFirst(i int) (first, second int) { return i, (i + 1) % seats }

// lowerFirst is the cure: the lower-numbered fork first, so that no cycle
// of waiting can close.
func lowerFirst(i int) (first, second int) {
	a, b := leftFirst(i)
	return min(a, b), max(a, b)
}

// dinner returns the dinner with forks taken in the given order. The
// philosophers sit down a little apart, so that two never reach for a fork
// at the same instant; each thinks briefly between the forks and eats for
// much longer.
func dinner(order func(i int) (first, second int)) func(*timeline.Recorder, func(int64) sem.Semaphore) {
	return func(rec *timeline.Recorder, newSem func(int64) sem.Semaphore) {
		forks := make([]*timeline.Watched, seats)
		for i := range forks {
			forks[i] = rec.Watch(fmt.Sprintf("fork %d", i), newSem(1))
			defer forks[i].Stop()
		}
		origin := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		defer cancel()
		var wg sync.WaitGroup
		for i := range seats {
			name := fmt.Sprintf("philosopher %d", i)
			a, b := order(i)
			first, second := forks[a].Lane(name), forks[b].Lane(name)
			wg.Go(func() {
				sleepUntil(origin, time.Duration(i)*100*time.Microsecond)
				if first.Acquire(ctx, 1) != nil {
					return
				}
				defer first.Release(1)
				time.Sleep(time.Millisecond)
				hold(ctx, second, 1, 10*time.Millisecond)
			})
		}
		wg.Wait()
	}
}
