package judge

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/semacat/sem/docs/problems/check"
)

// Barbershop is what problem 15 asks for: a barber who cuts hair until
// ctx is done, and customers who get a haircut or leave if the shop is full.
type Barbershop interface {
	Customer(ctx context.Context, getHairCut func()) (bool, error)
	Barber(ctx context.Context, cutHair func()) error
}

const (
	waitingChairs = 3
	longCut       = 300 * check.Tick
)

// Problem15 is the barbershop. The scenario:
// Twice, seven customers come one tick apart while the barber gives the
// first of them a long haircut; once everybody's fate is settled, a probe
// counts those who wait.
var Problem15 = check.Problem[func(check.NewSemaphore, int) Barbershop]{
	Seeds:    seeds,
	Laggards: true,
	Scenario: func(r *check.Run, newShop func(check.NewSemaphore, int) Barbershop) {
		shop := newShop(r.NewSemaphore, waitingChairs)
		cuts := 0
		r.Serve("barber", func(ctx context.Context) error {
			return shop.Barber(ctx, func() {
				d := check.Tick
				if cuts%(waitingChairs+1) == 0 {
					d = longCut
				}
				r.Work("barber", "cut hair", cuts, d)
				cuts++
			})
		})
		for burst, start := range []int{0, 600} {
			for i := range 7 {
				who := name("customer", 10*burst+i)
				r.Go(who, func(ctx context.Context) error {
					r.Sleep(time.Duration(start+i) * check.Tick)
					r.Record(who, "arrive", 0)
					served, err := shop.Customer(ctx, func() { r.Act(who, "get haircut", 0) })
					if err == nil && !served {
						r.Record(who, "balk", 0)
					} else if err == nil {
						r.Record(who, "leave", 0)
					}
					return err
				})
			}
			r.Go("probe", func(context.Context) error {
				r.Sleep(time.Duration(start+200) * check.Tick)
				r.Record("probe", "probe", 0)
				return nil
			})
		}
	},
	Rules: func(log []check.Event) error {
		return errors.Join(
			check.AtMost(log, "cut hair", 1), check.AtMost(log, "get haircut", 1),
			oneBarberOneCustomer(log), balkOnlyWhenFull(log))
	},
}

// oneBarberOneCustomer: haircuts begin in pairs, the barber's and a
// customer's, neither side more than one ahead.
func oneBarberOneCustomer(log []check.Event) error {
	began := map[string]int{}
	other := map[string]string{"cut hair": "get haircut", "get haircut": "cut hair"}
	for _, e := range log {
		if e.End || other[e.What] == "" {
			continue
		}
		began[e.What]++
		if began[e.What] > began[other[e.What]]+1 {
			return fmt.Errorf("%v: haircut %d, but %d of %q", e, began[e.What], began[other[e.What]], other[e.What])
		}
	}
	return nil
}

// balkOnlyWhenFull: a customer leaves unserved only if the shop is full
// (every chair taken by someone who came, did not balk, and has not left),
// and at each probe at most waitingChairs customers wait for a haircut.
//
// A customer finds the shop full at some moment between its arrival and
// its balk, and those who were in the shop then are in it still, or have
// left since it arrived: the balk is wrong only if even those together
// are too few. (Counting only those in the shop at the balk would reject
// a right answer whose leaving customer is quicker to say so than the
// balking one.)
func balkOnlyWhenFull(log []check.Event) error {
	inShop, waiting := map[string]bool{}, map[string]bool{}
	leftSince := map[string]int{} // customer -> customers who left since it arrived
	for _, e := range log {
		switch e.What {
		case "arrive":
			inShop[e.Who], waiting[e.Who] = true, true
			leftSince[e.Who] = 0
		case "get haircut":
			delete(waiting, e.Who)
		case "leave":
			delete(inShop, e.Who)
			for who := range leftSince {
				leftSince[who]++
			}
		case "balk":
			delete(inShop, e.Who)
			delete(waiting, e.Who)
			if len(inShop)+leftSince[e.Who] < waitingChairs+1 {
				left := ""
				if n := leftSince[e.Who]; n > 0 {
					left = fmt.Sprintf(" (and %d who left since it came)", n)
				}
				return fmt.Errorf("%v with %d in the shop%s of %d chairs and the barber's", e, len(inShop), left, waitingChairs)
			}
		case "probe":
			if len(waiting) > waitingChairs {
				return fmt.Errorf("%v: %d customers wait, on %d chairs", e, len(waiting), waitingChairs)
			}
		}
	}
	return nil
}
