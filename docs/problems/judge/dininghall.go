package judge

import (
	"context"
	"fmt"
	"time"

	"github.com/semacat/sem/docs/problems/check"
)

// DiningHall is what problem 26 asks for: Student sits down, dines and
// leaves, calling sit, dine and leave, but never leaves another student
// dining alone.
type DiningHall interface {
	Student(ctx context.Context, sit, dine, leave func()) error
}

// Problem26 is the dining hall. The scenario: a student dines a long time
// from 0; a second comes at 5 and is soon done; a third comes at 20 and
// dines long; then ten students at seeded times.
var Problem26 = check.Problem[func(check.NewSemaphore) DiningHall]{
	Seeds:    seeds,
	Laggards: true,
	Scenario: func(r *check.Run, newHall func(check.NewSemaphore) DiningHall) {
		h := newHall(r.NewSemaphore)
		student := func(i, at, dine int) {
			who := name("student", i)
			r.Go(who, func(ctx context.Context) error {
				r.Sleep(time.Duration(at) * check.Tick)
				return h.Student(ctx, func() { r.Record(who, "sit", 0) },
					func() { r.Work(who, "dine", 0, time.Duration(dine)*check.Tick) },
					func() { r.Record(who, "leave", 0) })
			})
		}
		student(0, 0, 30)
		student(1, 5, 5)
		student(2, 20, 30)
		for i := 3; i < 13; i++ {
			student(i, 100+r.Rand(60), 1+r.Rand(20))
		}
	},
	Rules: nobodyDinesAlone,
}

// nobodyDinesAlone: when a student leaves, the students still seated (sat
// down, not left) are not one student who has yet to finish dining.
func nobodyDinesAlone(log []check.Event) error {
	seated := map[string]bool{}
	done := map[string]bool{} // finished dining
	for _, e := range log {
		switch {
		case e.What == "sit":
			seated[e.Who] = true
		case e.What == "dine" && e.End:
			done[e.Who] = true
		case e.What == "leave":
			delete(seated, e.Who)
			if len(seated) != 1 {
				continue
			}
			for other := range seated { // the only one left
				if !done[other] {
					return fmt.Errorf("%v while %s dines alone", e, other)
				}
			}
		}
	}
	return nil
}
