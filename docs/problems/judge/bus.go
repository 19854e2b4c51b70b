package judge

import (
	"context"
	"fmt"
	"time"

	"github.com/semacat/sem/docs/problems/check"
)

// BusStop is what problem 24 asks for: riders wait at the stop, and each
// bus takes those waiting when it arrives, up to BusCapacity, and leaves.
type BusStop interface {
	Rider(ctx context.Context, board func()) error
	Bus(ctx context.Context, depart func()) error
}

// BusCapacity is how many riders a bus takes.
const BusCapacity = 4

// countedAfter is how long a rider may take, once it has arrived, to be
// counted at the stop: a few semaphore operations, each nudged.
const countedAfter = 20 * check.Tick

// boardingTime is how long a rider takes to board: four of them take
// longer than a bus takes to shut the stop, so that riders who come while
// a bus boards come well after it.
const boardingTime = 10 * check.Tick

// Problem24 is the Senate bus. The scenario: six riders come at once, and
// the first bus at 40 takes four; two riders arrive while it boards; the
// second bus takes the four left; three riders at random times, a third
// bus, and a fourth that finds nobody; then a late rider, after every bus
// so far has left (a bus that let on more riders than were waiting left
// her a way on with no bus there), and a fifth bus for her.
var Problem24 = check.Problem[func(check.NewSemaphore) BusStop]{
	Seeds: seeds,
	Scenario: func(r *check.Run, newStop func(check.NewSemaphore) BusStop) {
		s := newStop(r.NewSemaphore)
		riders := []int{0, 1, 2, 3, 4, 5, 65, 70, 150 + r.Rand(40), 150 + r.Rand(40), 150 + r.Rand(40), 400}
		for i, at := range riders {
			who := name("rider", i)
			r.Go(who, func(ctx context.Context) error {
				r.Sleep(time.Duration(at) * check.Tick)
				r.Record(who, "arrive", 0)
				return s.Rider(ctx, func() { r.Work(who, "board", 0, boardingTime) })
			})
		}
		for i, at := range []int{40, 120, 250, 350, 450} {
			who := name("bus", i)
			r.Go(who, func(ctx context.Context) error {
				r.Sleep(time.Duration(at) * check.Tick)
				r.Record(who, "arrive", 0)
				return s.Bus(ctx, func() { r.Record(who, "depart", 0) })
			})
		}
	},
	Rules: busRules,
}

// busRules: a rider boards only while a bus is at the stop, and not a bus
// that came well before the rider (countedAfter); a bus takes at most BusCapacity, and leaves
// only once it has taken every rider counted before it came, up to its
// capacity.
func busRules(log []check.Event) error {
	waiting := map[string]time.Duration{} // rider -> arrival
	var bus string                        // the bus at the stop
	var busAt time.Duration
	due, boarded := 0, 0
	for _, e := range log {
		isBus := len(e.Who) > 3 && e.Who[:3] == "bus"
		switch {
		case e.End:
		case e.What == "arrive" && isBus:
			bus, busAt, boarded, due = e.Who, e.At, 0, 0
			for _, at := range waiting {
				if e.At-at > countedAfter {
					due++
				}
			}
			due = min(due, BusCapacity)
		case e.What == "arrive":
			waiting[e.Who] = e.At
		case e.What == "board" && bus == "":
			return fmt.Errorf("%v with no bus at the stop", e)
		case e.What == "board" && waiting[e.Who] > busAt+countedAfter:
			return fmt.Errorf("%v, on %s, which came at %v, before the rider", e, bus, busAt)
		case e.What == "board":
			delete(waiting, e.Who)
			if boarded++; boarded > BusCapacity {
				return fmt.Errorf("%v: rider %d on %s, of %d seats", e, boarded, bus, BusCapacity)
			}
		case e.What == "depart" && boarded < due:
			return fmt.Errorf("%v with %d riders aboard, leaving behind riders who were waiting when it came (it had room for %d)", e, boarded, due)
		case e.What == "depart":
			bus = ""
		}
	}
	return nil
}
