package judge

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/semacat/sem/docs/problems/check"
)

// ChildCare is what problem 25 asks for: children stay only while there
// are enough adults; an adult leaves only if the children left have
// enough adults.
type ChildCare interface {
	Child(ctx context.Context, stay func()) error
	Adult(ctx context.Context, stay func()) error
}

// ChildrenPerAdult is how many children one adult may look after.
const ChildrenPerAdult = 3

// Problem25 is the child care center. The scenario: an adult comes first
// and stays long; four children come, one more than it may watch; a
// second adult comes, and soon wants to leave while all four are there;
// two more children come after it has gone; then a third adult and six
// children at seeded times.
var Problem25 = check.Problem[func(check.NewSemaphore) ChildCare]{
	Seeds:    seeds,
	Laggards: true,
	Scenario: func(r *check.Run, newCenter func(check.NewSemaphore) ChildCare) {
		c := newCenter(r.NewSemaphore)
		adult := func(i, at, stay int) {
			who := name("adult", i)
			r.Go(who, func(ctx context.Context) error {
				r.Sleep(time.Duration(at) * check.Tick)
				r.Record(who, "arrive", 0)
				err := c.Adult(ctx, func() { r.Work(who, "stay", 0, time.Duration(stay)*check.Tick) })
				r.Record(who, "leave", 0)
				return err
			})
		}
		child := func(i, at, stay int) {
			call{name("child", i), "stay", at, stay, c.Child}.visit(r)
		}
		adult(0, 0, 200)
		for i := range 4 {
			child(i, 5, 40+10*i)
		}
		adult(1, 20, 10)
		child(4, 100, 20)
		child(5, 101, 20)
		adult(2, 150, 150)
		for i := 6; i < 12; i++ {
			child(i, 160+r.Rand(60), 1+r.Rand(20))
		}
	},
	Rules: enoughAdults,
}

// enoughAdults: at no point do the children staying outnumber
// ChildrenPerAdult times the adults there (from their arrival until they
// have left).
func enoughAdults(log []check.Event) error {
	adults := map[string]bool{}
	children := map[string]bool{}
	for _, e := range log {
		isAdult := strings.HasPrefix(e.Who, "adult")
		switch {
		case isAdult && e.What == "arrive":
			adults[e.Who] = true
		case isAdult && e.What == "leave":
			delete(adults, e.Who)
		case !isAdult && e.What == "stay" && !e.End:
			children[e.Who] = true
		case !isAdult && e.What == "stay":
			delete(children, e.Who)
		}
		if len(children) > ChildrenPerAdult*len(adults) {
			return fmt.Errorf("%v: %d children stay, with adults enough for %d", e, len(children), ChildrenPerAdult*len(adults))
		}
	}
	return nil
}
