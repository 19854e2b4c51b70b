package judge

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/semacat/sem/docs/problems/check"
)

// Hall is what problem 31 asks for: Faneuil Hall, where immigrants are
// sworn in as citizens before a judge, and spectators watch.
type Hall interface {
	// Immigrant calls the steps of a in order.
	Immigrant(ctx context.Context, a Ceremony) error
	// Spectator calls enter, spectate and leave.
	Spectator(ctx context.Context, enter, spectate, leave func()) error
	// Judge calls enter, confirm (the immigrants who have checked in) and
	// leave.
	Judge(ctx context.Context, enter, confirm, leave func()) error
}

// Ceremony is what an immigrant does in Faneuil Hall, in this order.
type Ceremony struct {
	Enter, CheckIn, SitDown, Swear, GetCertificate, Leave func()
}

// Immigrants is how many immigrants come to Faneuil Hall in Problem31.
const Immigrants = 16

// Problem31 is Faneuil Hall. The scenario: immigrants and spectators come
// at seeded times over a few hundred ticks; the judge comes three times,
// the last when everybody has long come in.
var Problem31 = check.Problem[func(check.NewSemaphore) Hall]{
	Seeds:    seeds,
	Laggards: true,
	Scenario: func(r *check.Run, newHall func(check.NewSemaphore) Hall) {
		hall := newHall(r.NewSemaphore)
		for i := range Immigrants {
			who := name("immigrant", i)
			at := time.Duration(r.Rand(300)) * check.Tick
			step := func(what string) func() { return func() { r.Record(who, what, i) } }
			r.Go(who, func(ctx context.Context) error {
				r.Sleep(at)
				return hall.Immigrant(ctx, Ceremony{
					Enter: step("enter"), CheckIn: step("check in"),
					SitDown: func() { r.Act(who, "sit down", i) }, Swear: step("swear"),
					GetCertificate: step("get certificate"), Leave: step("leave"),
				})
			})
		}
		for i := range 8 {
			who := name("spectator", i)
			at := time.Duration(r.Rand(300)) * check.Tick
			r.Go(who, func(ctx context.Context) error {
				r.Sleep(at)
				return hall.Spectator(ctx, func() { r.Record(who, "enter", i) },
					func() { r.Work(who, "spectate", i, time.Duration(10+r.Rand(60))*check.Tick) },
					func() { r.Record(who, "leave", i) })
			})
		}
		r.Go("judge", func(ctx context.Context) error {
			for visit, after := range []int{60, 120, 700} {
				r.Sleep(time.Duration(after) * check.Tick)
				if err := hall.Judge(ctx, func() { r.Record("judge", "enter", visit) },
					func() { r.Act("judge", "confirm", visit) },
					func() { r.Record("judge", "leave", visit) }); err != nil {
					return err
				}
			}
			return nil
		})
	},
	Rules: func(log []check.Event) error { return errors.Join(judgePresent(log), ceremonies(log)) },
}

// judgePresent: while the judge is in, nobody comes in and no immigrant
// leaves; the judge confirms only once every immigrant who came in (and
// has not been confirmed) has checked in.
func judgePresent(log []check.Event) error {
	judgeIn := false
	entered, checked := map[string]bool{}, map[string]bool{}
	for _, e := range log {
		immigrant := strings.HasPrefix(e.Who, "immigrant")
		switch {
		case e.Who == "judge" && e.What == "enter":
			judgeIn = true
		case e.Who == "judge" && e.What == "leave":
			judgeIn = false
		case e.Who == "judge" && e.What == "confirm" && !e.End:
			for _, who := range slices.Sorted(maps.Keys(entered)) {
				if !checked[who] {
					return fmt.Errorf("%v while %s, who came in, has not checked in: the judge confirms only once all who came in have checked in", e, who)
				}
			}
			clear(entered)
			clear(checked)
		case e.What == "enter" && judgeIn:
			return fmt.Errorf("%v while the judge is in: nobody comes in then", e)
		case e.What == "leave" && immigrant && judgeIn:
			return fmt.Errorf("%v while the judge is in: immigrants leave only once the judge has left", e)
		case e.What == "enter" && immigrant:
			entered[e.Who] = true
		case e.What == "check in":
			checked[e.Who] = true
		}
	}
	return nil
}

// ceremonySteps is the order of an immigrant's steps.
var ceremonySteps = []string{"enter", "check in", "sit down", "swear", "get certificate", "leave"}

// ceremonies: each immigrant takes its steps in order, each once, and
// swears only once a judge has confirmed it (a confirm begun after its
// check-in).
func ceremonies(log []check.Event) error {
	done, confirmed := map[string]int{}, map[string]bool{}
	for _, e := range log {
		if e.Who == "judge" && e.What == "confirm" && !e.End {
			for who, n := range done {
				if n >= 2 { // checked in
					confirmed[who] = true
				}
			}
			continue
		}
		if !strings.HasPrefix(e.Who, "immigrant") || e.End {
			continue
		}
		i := slices.Index(ceremonySteps, e.What)
		switch {
		case i < 0:
		case e.What == "swear" && !confirmed[e.Who]:
			return fmt.Errorf("%v before a judge confirmed it: an immigrant swears and gets its certificate only after the judge's confirm", e)
		case i == done[e.Who]:
			done[e.Who]++
		case i < done[e.Who]:
			return fmt.Errorf("%v: %s did that already", e, e.Who)
		default:
			return fmt.Errorf("%v: %s must %s first", e, e.Who, ceremonySteps[done[e.Who]])
		}
	}
	return nil
}
