package judge

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/semacat/sem/docs/problems/check"
)

// Coaster is what problem 23 asks for: a car of CarSeats that passengers
// board and leave, and the car's loop.
type Coaster interface {
	Passenger(ctx context.Context, board, unboard func()) error
	Car(ctx context.Context, load, run, unload func()) error
}

// CarSeats is how many passengers fill the car.
const CarSeats = 4

// Problem23 is the roller coaster. The scenario: twelve passengers come at
// seeded times, six of them at once; the car gives three rides.
var Problem23 = check.Problem[func(check.NewSemaphore) Coaster]{
	Seeds:    seeds,
	Laggards: true,
	Scenario: func(r *check.Run, newCoaster func(check.NewSemaphore) Coaster) {
		c := newCoaster(r.NewSemaphore)
		r.Serve("car", func(ctx context.Context) error {
			return c.Car(ctx, func() { r.Act("car", "load", 0) }, func() {
				r.Work("car", "run", 0, 20*check.Tick)
			}, func() { r.Act("car", "unload", 0) })
		})
		for i := range 3 * CarSeats {
			who, at := name("passenger", i), 0
			if i >= 6 {
				at = r.Rand(60)
			}
			r.Go(who, func(ctx context.Context) error {
				r.Sleep(time.Duration(at) * check.Tick)
				return c.Passenger(ctx, func() { r.Act(who, "board", 0) }, func() { r.Act(who, "unboard", 0) })
			})
		}
	},
	Rules: func(log []check.Event) error { return errors.Join(rides(log), check.AtMost(log, "board", CarSeats)) },
}

// rides: passengers board only after the car began to load and before it
// runs, CarSeats of them; they unboard only after it began to unload, all
// of them, before it loads again.
func rides(log []check.Event) error {
	state, aboard, boarded := "unloaded", 0, 0
	for _, e := range log {
		if e.End {
			continue
		}
		switch e.What {
		case "load":
			if aboard > 0 {
				return fmt.Errorf("%v with %d passengers of the last ride still aboard", e, aboard)
			}
			state, boarded = "loading", 0
		case "board":
			if state != "loading" {
				return fmt.Errorf("%v while the car is %s", e, state)
			}
			aboard++
			boarded++
		case "run":
			if boarded != CarSeats {
				return fmt.Errorf("%v with %d of %d seats taken", e, boarded, CarSeats)
			}
			state = "running"
		case "unload":
			state = "unloading"
		case "unboard":
			if state != "unloading" {
				return fmt.Errorf("%v while the car is %s", e, state)
			}
			aboard--
		}
	}
	return nil
}
