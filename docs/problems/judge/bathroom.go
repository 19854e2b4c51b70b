package judge

import (
	"context"
	"errors"

	"github.com/semacat/sem/docs/problems/check"
)

// Bathroom is what problem 21 asks for: women and men never in at once,
// and at most BathroomSize in.
type Bathroom interface {
	Woman(ctx context.Context, use func()) error
	Man(ctx context.Context, use func()) error
}

// BathroomSize is how many may be in the bathroom at once.
const BathroomSize = 3

// Problem21 is the unisex bathroom. The scenario: four women come at once,
// two men a little later, three more women after them; then ten visitors
// at seeded times.
var Problem21 = check.Problem[func(check.NewSemaphore) Bathroom]{
	Seeds:    seeds,
	Laggards: true,
	Scenario: func(r *check.Run, newBathroom func(check.NewSemaphore) Bathroom) {
		b := newBathroom(r.NewSemaphore)
		visitor := func(i int, woman bool, at, stay int) {
			if woman {
				call{name("woman", i), "use as a woman", at, stay, b.Woman}.visit(r)
			} else {
				call{name("man", i), "use as a man", at, stay, b.Man}.visit(r)
			}
		}
		for i := range 4 {
			visitor(i, true, 0, 20)
		}
		visitor(4, false, 2, 10)
		visitor(5, false, 3, 10)
		for i := 6; i < 9; i++ {
			visitor(i, true, 5, 10)
		}
		for i := 9; i < 19; i++ {
			visitor(i, r.Rand(2) == 0, 100+r.Rand(40), 1+r.Rand(10))
		}
	},
	Rules: func(log []check.Event) error {
		return errors.Join(
			apart(log, "use as a woman", "use as a man"),
			atMostOf(log, BathroomSize, "use as a woman", "use as a man"),
			together(log, "use as a woman", "use as a woman", "women never shared the bathroom"))
	},
}
