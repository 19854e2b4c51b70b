package judge

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/semacat/sem/docs/problems/check"
)

const (
	looping   = 4 // goroutines
	loopTimes = 10
	// mostBypasses is how many times another goroutine may enter while
	// one waits: the batch in the critical section, the batch the waiter
	// joins, and one for a waiter that had not yet joined a batch when it
	// said it was waiting.
	mostBypasses = 3
)

// Problem12 is the no-starve mutex. The scenario:
// Four goroutines enter the critical section over and over, on weak
// semaphores that wake the newest waiter first.
var Problem12 = check.Problem[func(check.NewSemaphore) Guard]{
	Seeds: seeds,
	Scenario: func(r *check.Run, newMutex func(check.NewSemaphore) Guard) {
		m := newMutex(r.NewWeakSemaphore)
		for i := range looping {
			who := name("goroutine", i)
			r.Go(who, func(ctx context.Context) error {
				return each(loopTimes, func(k int) error {
					r.Record(who, "wait", k)
					return m.Do(ctx, func() { r.Act(who, "critical", k) })
				})
			})
		}
	},
	Rules: func(log []check.Event) error {
		if err := check.AtMost(log, "critical", 1); err != nil {
			return err
		}
		return boundedBypass(log)
	},
}

// boundedBypass: while a goroutine waits, no other enters the critical
// section more than mostBypasses times.
func boundedBypass(log []check.Event) error {
	bypassed := map[string]map[string]int{} // waiting -> entering -> times
	for _, e := range log {
		switch {
		case e.What == "wait":
			bypassed[e.Who] = map[string]int{}
		case e.What == "critical" && !e.End:
			delete(bypassed, e.Who)
			for _, waiting := range slices.Sorted(maps.Keys(bypassed)) { // sorted: the same verdict every time
				by := bypassed[waiting]
				by[e.Who]++
				if by[e.Who] > mostBypasses {
					return fmt.Errorf("%v: %s has entered %d times while %s waited", e, e.Who, by[e.Who], waiting)
				}
			}
		}
	}
	return nil
}
