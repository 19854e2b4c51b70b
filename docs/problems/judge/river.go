package judge

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/semacat/sem/docs/problems/check"
)

// River is what problem 18 asks for: hackers and serfs cross in safe
// boatloads of four.
type River interface {
	Hacker(ctx context.Context, board, rowBoat func()) error
	Serf(ctx context.Context, board, rowBoat func()) error
}

// Problem18 is the river crossing. The scenario:
// Three hackers and a serf come at once; then five hackers and seven serfs
// within a few seeded ticks, so that boats form one right after another:
// four boatloads; then eight of each at seeded times, four boatloads more.
//
// A boat whose passengers meet at a shared barrier fails only when one of
// them is slow at its way out just as the next boat forms: the checker
// makes ten times the usual runs to meet that.
var Problem18 = check.Problem[func(check.NewSemaphore) River]{
	Seeds:    10 * seeds,
	Laggards: true,
	Scenario: func(r *check.Run, newRiver func(check.NewSemaphore) River) {
		rv := newRiver(r.NewSemaphore)
		passenger := func(who string, at int, cross func(context.Context, func(), func()) error) {
			r.Go(who, func(ctx context.Context) error {
				r.Sleep(time.Duration(at) * check.Tick)
				return cross(ctx, func() { r.Act(who, "board", 0) }, func() { r.Act(who, "row", 0) })
			})
		}
		for i := range 8 {
			hackerAt, serfAt := 0, 0
			if i >= 3 {
				hackerAt = 10 + r.Rand(5)
			}
			if i >= 1 {
				serfAt = 10 + r.Rand(5)
			}
			passenger(name("hacker", i), hackerAt, rv.Hacker)
			passenger(name("serf", i), serfAt, rv.Serf)
		}
		for i := 8; i < 16; i++ { // four more boatloads, one after another
			passenger(name("hacker", i), 30+r.Rand(30), rv.Hacker)
			passenger(name("serf", i), 30+r.Rand(30), rv.Serf)
		}
	},
	Rules: safeBoatloads,
}

// safeBoatloads: passengers board four by four, four of a kind or two and
// two; a boat is rowed once, by one of its four, after all have boarded;
// the next boat's passengers board only after it has been rowed.
func safeBoatloads(log []check.Event) error {
	var boat []string
	rowed := false
	for _, e := range log {
		switch {
		case e.End:
		case e.What == "row" && (len(boat) < 4 || rowed || !slices.Contains(boat, e.Who)):
			return fmt.Errorf("%v: the boat %v", e, boat)
		case e.What == "row":
			rowed = true
		case len(boat) == 4 && !rowed:
			return fmt.Errorf("%v while the boat %v is still at the bank", e, boat)
		default:
			if len(boat) == 4 {
				boat, rowed = nil, false
			}
			boat = append(boat, e.Who)
			if h := countKind(boat, "hacker"); len(boat) == 4 && (h == 1 || h == 3) {
				return fmt.Errorf("%v: the boat would be %v", e, boat)
			}
		}
	}
	return nil
}
