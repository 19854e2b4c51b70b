package judge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/semacat/sem/docs/problems/check"
)

// A call is one goroutine's visit: it arrives at a tick, records that it
// arrives, calls enter with a function that works for stay ticks, and
// returns.
type call struct {
	who      string
	what     string // the work, as recorded: "search", "use", "eat"...
	at, stay int
	enter    func(ctx context.Context, work func()) error
}

// visit starts c as a goroutine of r.
func (c call) visit(r *check.Run) {
	r.Go(c.who, func(ctx context.Context) error {
		r.Sleep(time.Duration(c.at) * check.Tick)
		r.Record(c.who, "arrive to "+c.what, 0)
		return c.enter(ctx, func() { r.Work(c.who, c.what, 0, time.Duration(c.stay)*check.Tick) })
	})
}

// together reports an error unless, at some point of log, a goroutine
// began first while another was doing second: "searchers never searched
// together" for ("search", "search").
func together(log []check.Event, first, second, never string) error {
	met := false
	_ = check.Replay(log, func(e check.Event, in *check.Inside) error {
		met = met || (e.What == first && !e.End && in.Count(second) > 0)
		return nil
	})
	if !met {
		return errors.New(never)
	}
	return nil
}

// apart reports the first time a goroutine began one of whats while some
// goroutine was doing another of them.
func apart(log []check.Event, whats ...string) error {
	return check.Replay(log, func(e check.Event, in *check.Inside) error {
		if e.End {
			return nil
		}
		for _, mine := range whats {
			for _, other := range whats {
				if e.What == mine && other != mine && in.Count(other) > 0 {
					return fmt.Errorf("%v while %v: %s and %s at once", e, in.Who(other), mine, other)
				}
			}
		}
		return nil
	})
}

// atMostOf reports the first time more than most goroutines are doing any
// of whats at once.
func atMostOf(log []check.Event, most int, whats ...string) error {
	return check.Replay(log, func(e check.Event, in *check.Inside) error {
		if e.End || !slices.Contains(whats, e.What) {
			return nil
		}
		var inside []string
		for _, w := range whats {
			inside = append(inside, in.Who(w)...)
		}
		if len(inside) >= most {
			return fmt.Errorf("%v while %v were in: more than %d at once", e, inside, most)
		}
		return nil
	})
}
