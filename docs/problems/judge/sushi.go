package judge

import (
	"context"
	"errors"
	"fmt"

	"github.com/semacat/sem/docs/problems/check"
)

// SushiBar is what problem 22 asks for: Eat waits for a seat at a bar of
// SushiSeats, calls eat, and leaves.
type SushiBar interface {
	Eat(ctx context.Context, eat func()) error
}

// SushiSeats is how many seats the bar has.
const SushiSeats = 5

// Problem22 is the sushi bar. The scenario: seven customers come one tick
// apart and eat a long time, so that the bar fills and two wait; the five
// leave one by one; then ten customers at seeded times.
var Problem22 = check.Problem[func(check.NewSemaphore) SushiBar]{
	Seeds:    seeds,
	Laggards: true,
	Scenario: func(r *check.Run, newBar func(check.NewSemaphore) SushiBar) {
		b := newBar(r.NewSemaphore)
		for i := range 7 {
			call{name("customer", i), "eat", i, 100 + 10*i, b.Eat}.visit(r)
		}
		for i := 7; i < 17; i++ {
			call{name("customer", i), "eat", 400 + r.Rand(40), 1 + r.Rand(20), b.Eat}.visit(r)
		}
	},
	Rules: func(log []check.Event) error {
		return errors.Join(check.AtMost(log, "eat", SushiSeats), fullBarEmpties(log),
			together(log, "eat", "eat", "customers never ate together"))
	},
}

// fullBarEmpties: once all the seats have been taken at once, nobody sits
// down until every one of those diners has left; and the bar does fill.
func fullBarEmpties(log []check.Event) error {
	full, filled := false, false
	return errors.Join(check.Replay(log, func(e check.Event, in *check.Inside) error {
		switch {
		case e.What != "eat":
		case !e.End && full:
			return fmt.Errorf("%v while %v, of the party that filled the bar, still eat: a full bar must empty before anyone sits", e, in.Who("eat"))
		case !e.End && in.Count("eat") == SushiSeats-1:
			full, filled = true, true
		case e.End && in.Count("eat") == 1:
			full = false
		}
		return nil
	}), func() error {
		if !filled {
			return fmt.Errorf("the bar never filled: %d never ate at once", SushiSeats)
		}
		return nil
	}())
}
