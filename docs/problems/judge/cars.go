package judge

import (
	"context"
	"fmt"
	"time"

	"github.com/semacat/sem/docs/problems/check"
)

// Cars is what problem 27 asks for: the roller coaster with several cars
// of CarSeats on one track, which load and unload one at a time, in
// order.
type Cars interface {
	Passenger(ctx context.Context, board, unboard func()) error
	Car(ctx context.Context, car int, load, run, unload func()) error
}

// CarsOnTrack is how many cars the multi-car roller coaster has.
const CarsOnTrack = 3

// Problem27 is the multi-car roller coaster. The scenario: twelve
// passengers at once, twelve more at seeded times; three cars give eight
// rides between them.
var Problem27 = check.Problem[func(check.NewSemaphore) Cars]{
	Seeds:    seeds,
	Laggards: true,
	Scenario: func(r *check.Run, newCars func(check.NewSemaphore) Cars) {
		c := newCars(r.NewSemaphore)
		for car := range CarsOnTrack {
			who := name("car", car)
			r.Serve(who, func(ctx context.Context) error {
				return c.Car(ctx, car, func() { r.Act(who, "load", car) }, func() {
					r.Work(who, "run", car, 30*check.Tick)
				}, func() { r.Act(who, "unload", car) })
			})
		}
		for i := range 8 * CarSeats {
			who, at := name("passenger", i), 0
			if i >= 3*CarSeats {
				at = r.Rand(100)
			}
			r.Go(who, func(ctx context.Context) error {
				r.Sleep(time.Duration(at) * check.Tick)
				return c.Passenger(ctx, func() { r.Act(who, "board", 0) }, func() { r.Act(who, "unboard", 0) })
			})
		}
	},
	Rules: carsInOrder,
}

// carsInOrder: cars load one at a time, in turn (0, 1, 2, 0...), each
// taking CarSeats passengers before it runs (once it is full, the next may
// load); they unload one at a time, in
// the same turn, and each passenger gets off its own car while it
// unloads, before the next car unloads; a car loads again only empty.
func carsInOrder(log []check.Event) error {
	loading, unloading := -1, -1 // the car doing so, or -1
	nextLoad, nextUnload := 0, 0
	aboard := make([]int, CarsOnTrack)
	onCar := map[string]int{}
	for _, e := range log {
		if e.End {
			continue
		}
		switch e.What {
		case "load":
			switch {
			case loading >= 0:
				return fmt.Errorf("%v while car %d loads", e, loading)
			case e.N != nextLoad:
				return fmt.Errorf("%v: car %d's turn to load", e, nextLoad)
			case aboard[e.N] > 0:
				return fmt.Errorf("%v with %d passengers of its last ride aboard", e, aboard[e.N])
			}
			loading, nextLoad = e.N, (e.N+1)%CarsOnTrack
		case "board":
			if loading < 0 {
				return fmt.Errorf("%v while no car loads", e)
			}
			onCar[e.Who] = loading
			if aboard[loading]++; aboard[loading] == CarSeats {
				loading = -1 // full: the next car may load
			}
		case "run":
			if aboard[e.N] != CarSeats {
				return fmt.Errorf("%v with %d of %d seats taken", e, aboard[e.N], CarSeats)
			}
		case "unload":
			switch {
			case unloading >= 0:
				return fmt.Errorf("%v while car %d unloads", e, unloading)
			case e.N != nextUnload:
				return fmt.Errorf("%v: car %d's turn to unload", e, nextUnload)
			}
			unloading, nextUnload = e.N, (e.N+1)%CarsOnTrack
		case "unboard":
			car, ok := onCar[e.Who]
			if !ok || car != unloading {
				return fmt.Errorf("%v from car %d while car %d unloads", e, car, unloading)
			}
			delete(onCar, e.Who)
			if aboard[car]--; aboard[car] == 0 {
				unloading = -1 // everyone is off
			}
		}
	}
	return nil
}
