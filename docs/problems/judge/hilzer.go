package judge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/semacat/sem/docs/problems/check"
)

// HilzerShop is what problem 29 asks for: Hilzer's barbershop, with
// ShopBarbers barbers and their chairs, a sofa of SofaSeats, and room for
// ShopHolds customers in all (the number it is built with).
type HilzerShop interface {
	// Customer is customer id's visit: it calls v's steps in order, or
	// only v.Balk, and reports whether it got a haircut.
	Customer(ctx context.Context, id int, v Visit) (served bool, err error)
	// Barber cuts hair and takes payments until ctx is done, calling
	// cutHair and acceptPayment with the customer it serves.
	Barber(ctx context.Context, cutHair, acceptPayment func(customer int)) error
}

// Visit is what a customer of Hilzer's barbershop does, in this order:
// EnterShop, SitOnSofa, SitInBarberChair, then (once a barber has cut its
// hair) Pay, then (once a barber has accepted its payment) LeaveShop. A
// customer who finds the shop full calls Balk instead, and nothing else.
type Visit struct {
	EnterShop, SitOnSofa, SitInBarberChair, Pay, LeaveShop, Balk func()
}

// Sizes of Hilzer's barbershop.
const (
	ShopBarbers = 3  // barbers, and barber chairs
	SofaSeats   = 4  // places on the sofa
	ShopHolds   = 20 // customers inside at most, standing or seated
)

// The customers of Problem29: a crowd that overfills the shop while the
// first haircuts are long, then customers at seeded times.
const (
	crowd      = ShopHolds + 5
	latecomers = 15
	firstCuts  = 200 * check.Tick
)

// Problem29 is Hilzer's barbershop. The scenario: three barbers; 25
// customers come in the first ticks while the first three haircuts take
// long, so that the shop fills and some turn away; then 15 customers at
// seeded times, to a shop that empties.
var Problem29 = check.Problem[func(check.NewSemaphore, int) HilzerShop]{
	Seeds:    seeds,
	Laggards: true,
	Scenario: func(r *check.Run, newShop func(check.NewSemaphore, int) HilzerShop) {
		shop := newShop(r.NewSemaphore, ShopHolds)
		var cuts atomic.Int32 // the barbers' cuts so far: atomic, as free runs run the barbers at once
		for b := range ShopBarbers {
			who := name("barber", b)
			r.Serve(who, func(ctx context.Context) error {
				return shop.Barber(ctx,
					func(c int) {
						d := time.Duration(5+r.Rand(10)) * check.Tick
						if cuts.Add(1) <= ShopBarbers {
							d = firstCuts
						}
						r.Work(who, "cut hair", c, d)
					},
					func(c int) { r.Act(who, "accept payment", c) })
			})
		}
		for i := range crowd + latecomers {
			at := i / 4
			if i >= crowd {
				at = 300 + r.Rand(400)
			}
			visitHilzer(r, shop, i, time.Duration(at)*check.Tick)
		}
	},
	Rules: func(log []check.Event) error {
		return errors.Join(hilzerOrder(log), hilzerRoom(log), hilzerLines(log), oneRegister(log))
	},
}

// visitHilzer starts customer i, who comes at at.
func visitHilzer(r *check.Run, shop HilzerShop, i int, at time.Duration) {
	who := name("customer", i)
	step := func(what string) func() { return func() { r.Record(who, what, i) } }
	r.Go(who, func(ctx context.Context) error {
		r.Sleep(at)
		served, err := shop.Customer(ctx, i, Visit{
			EnterShop:        step("enter shop"),
			SitOnSofa:        step("sit on sofa"),
			SitInBarberChair: step("sit in barber chair"),
			Pay:              func() { r.Act(who, "pay", i) },
			LeaveShop:        step("leave shop"),
			Balk:             step("balk"),
		})
		if err == nil && served {
			r.Record(who, "served", i)
		} else if err == nil {
			r.Record(who, "turned away", i)
		}
		return err
	})
}

// hilzerSteps is the order of what happens to a customer: its own steps,
// and the barbers' "cut hair" and "accept payment", done to it.
var hilzerSteps = []struct{ what, done string }{
	{"enter shop", "entered the shop"},
	{"sit on sofa", "sat on the sofa"},
	{"sit in barber chair", "sat in a barber chair"},
	{"cut hair", "had a barber begin its haircut"},
	{"cut hair ends", "had its haircut finished (it pays after)"},
	{"pay", "begun to pay"},
	{"pay ends", "paid (a barber accepts a payment once it is made)"},
	{"accept payment", "had a barber take its payment"},
	{"accept payment ends", "had its payment accepted (it waits for its receipt)"},
	{"leave shop", "left the shop"},
	{"served", ""},
}

// hilzerOrder: each customer's steps happen in order, each once, and a
// customer reports a haircut only after all of them; one who balks does
// nothing else and reports no haircut.
func hilzerOrder(log []check.Event) error {
	done := map[int]int{} // customer -> steps done; -1 once it balked
	for _, e := range log {
		what := e.What
		if e.End {
			what += " ends"
		}
		who := fmt.Sprintf("customer %d", e.N)
		switch what {
		case "balk":
			if done[e.N] != 0 {
				return fmt.Errorf("%v after it came in: a customer balks instead of entering", e)
			}
			done[e.N] = -1
			continue
		case "turned away":
			if done[e.N] != -1 {
				return fmt.Errorf("%v: %s reports no haircut but did not balk", e, who)
			}
			continue
		}
		i := slices.IndexFunc(hilzerSteps, func(s struct{ what, done string }) bool { return s.what == what })
		switch {
		case i < 0:
		case done[e.N] < 0:
			return fmt.Errorf("%v, but %s balked", e, who)
		case i < done[e.N]:
			return fmt.Errorf("%v: %s has %s already (each step happens once)", e, who, hilzerSteps[i].done)
		case i > done[e.N]:
			return fmt.Errorf("%v: %s has not yet %s", e, who, hilzerSteps[done[e.N]].done)
		default:
			done[e.N]++
		}
	}
	return nil
}

// hilzerRoom: at most ShopHolds inside, a customer balks only when
// ShopHolds are inside, at most SofaSeats on the sofa and ShopBarbers in
// barber chairs (from sitting down until the haircut ends).
func hilzerRoom(log []check.Event) error {
	inside, onSofa, inChair := 0, 0, 0
	for _, e := range log {
		switch {
		case e.What == "enter shop":
			if inside++; inside > ShopHolds {
				return fmt.Errorf("%v with %d inside already: the shop holds %d", e, inside-1, ShopHolds)
			}
		case e.What == "leave shop":
			inside--
		case e.What == "balk" && inside < ShopHolds:
			return fmt.Errorf("%v with %d inside: a customer turns away only from a full shop (%d inside)", e, inside, ShopHolds)
		case e.What == "sit on sofa":
			if onSofa++; onSofa > SofaSeats {
				return fmt.Errorf("%v with %d on the sofa already: it seats %d", e, onSofa-1, SofaSeats)
			}
		case e.What == "sit in barber chair":
			onSofa--
			if inChair++; inChair > ShopBarbers {
				return fmt.Errorf("%v with %d in barber chairs already: there are %d", e, inChair-1, ShopBarbers)
			}
		case e.What == "cut hair" && e.End:
			inChair--
		}
	}
	return nil
}

// hilzerLines: customers sit on the sofa in the order they entered, and
// move to a barber chair in the order they sat on the sofa.
func hilzerLines(log []check.Event) error {
	var entered, sat []int
	for _, e := range log {
		switch e.What {
		case "enter shop":
			entered = append(entered, e.N)
		case "sit on sofa":
			if len(sat) >= len(entered) {
				return fmt.Errorf("%v, but nobody who entered the shop still stands", e)
			}
			if first := entered[len(sat)]; first != e.N {
				return fmt.Errorf("%v, but customer %d came in before it and still stands: the sofa is taken in the order customers came in", e, first)
			}
			sat = append(sat, e.N)
		}
	}
	chaired := 0
	for _, e := range log {
		if e.What != "sit in barber chair" {
			continue
		}
		if chaired >= len(sat) {
			return fmt.Errorf("%v, but nobody is on the sofa", e)
		}
		if first := sat[chaired]; first != e.N {
			return fmt.Errorf("%v, but customer %d has sat on the sofa longer: the sofa's longest sitter goes to a barber first", e, first)
		}
		chaired++
	}
	return nil
}

// oneRegister: the shop has one cash register, so one payment is accepted
// at a time.
func oneRegister(log []check.Event) error {
	if err := check.AtMost(log, "accept payment", 1); err != nil {
		return fmt.Errorf("%w: the shop has one cash register", err)
	}
	return nil
}
