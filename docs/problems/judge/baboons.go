package judge

import (
	"context"
	"errors"

	"github.com/semacat/sem/docs/problems/check"
)

// Rope is what problem 28 asks for: baboons cross a canyon on a rope, never
// two going opposite ways at once, at most RopeHolds at once.
type Rope interface {
	East(ctx context.Context, cross func()) error
	West(ctx context.Context, cross func()) error
}

// RopeHolds is how many baboons the rope holds.
const RopeHolds = 5

// Problem28 is the baboon crossing. The scenario: seven baboons going east
// come at once; three going west a little later; five more going east
// after them; then twelve baboons at seeded times.
var Problem28 = check.Problem[func(check.NewSemaphore) Rope]{
	Seeds:    seeds,
	Laggards: true,
	Scenario: func(r *check.Run, newRope func(check.NewSemaphore) Rope) {
		rope := newRope(r.NewSemaphore)
		baboon := func(i int, east bool, at, stay int) {
			if east {
				call{name("baboon", i), "cross east", at, stay, rope.East}.visit(r)
			} else {
				call{name("baboon", i), "cross west", at, stay, rope.West}.visit(r)
			}
		}
		for i := range 7 {
			baboon(i, true, 0, 30)
		}
		for i := 7; i < 10; i++ {
			baboon(i, false, 3, 10)
		}
		for i := 10; i < 15; i++ {
			baboon(i, true, 6, 10)
		}
		for i := 15; i < 27; i++ {
			baboon(i, r.Rand(2) == 0, 200+r.Rand(60), 1+r.Rand(10))
		}
	},
	Rules: func(log []check.Event) error {
		return errors.Join(
			apart(log, "cross east", "cross west"),
			atMostOf(log, RopeHolds, "cross east", "cross west"),
			together(log, "cross east", "cross east", "baboons never crossed together"))
	},
}
