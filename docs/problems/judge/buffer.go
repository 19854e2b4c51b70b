package judge

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/semacat/sem/docs/problems/check"
)

// Buffer is what problem 9 asks for: a bounded buffer of ints.
type Buffer interface {
	Put(ctx context.Context, item int) error
	Take(ctx context.Context) (int, error)
}

const (
	bufferCapacity = 3
	producers      = 3
	itemsEach      = 5 // per producer, and per consumer
)

// Problem9 is producer-consumer. The scenario:
// One consumer comes at once, to an empty buffer; the producers come at 5
// and the other consumers only at 50, so the producers fill the buffer.
var Problem9 = check.Problem[func(check.NewSemaphore, int) Buffer]{
	Seeds:    seeds,
	Laggards: true,
	Scenario: func(r *check.Run, newBuffer func(check.NewSemaphore, int) Buffer) {
		b := newBuffer(r.NewSemaphore, bufferCapacity)
		for p := range producers {
			who := name("producer", p)
			r.Go(who, func(ctx context.Context) error {
				r.Sleep(5 * check.Tick)
				return each(itemsEach, func(k int) error {
					r.Record(who, "put", 100*p+k)
					if err := b.Put(ctx, 100*p+k); err != nil {
						return err
					}
					r.Record(who, "put", 100*p+k)
					return nil
				})
			})
		}
		for c := range producers {
			who := name("consumer", c)
			r.Go(who, func(ctx context.Context) error {
				r.Sleep(time.Duration(min(c, 1)*50) * check.Tick)
				return each(itemsEach, func(int) error {
					r.Record(who, "take", 0)
					item, err := b.Take(ctx)
					if err != nil {
						return err
					}
					r.Record(who, "took", item)
					return nil
				})
			})
		}
	},
	Rules: func(log []check.Event) error { return errors.Join(neverOverCapacity(log), eachItemOnceInOrder(log)) },
}

// neverOverCapacity: the puts that have returned, less the takes that have
// begun, never exceed the capacity (the buffer holds at least that many).
// A put is recorded twice: as it begins and once it has returned.
func neverOverCapacity(log []check.Event) error {
	putting := map[int]bool{}
	stored := 0
	for _, e := range log {
		switch {
		case e.What == "put" && !putting[e.N]:
			putting[e.N] = true
		case e.What == "put":
			stored++
			if stored > bufferCapacity {
				return fmt.Errorf("%v returned: at least %d items stored in a buffer of %d", e, stored, bufferCapacity)
			}
		case e.What == "take":
			stored--
		}
	}
	return nil
}

// eachItemOnceInOrder: every item is taken once, after it was put, and
// each consumer gets the items of one producer in the order they were put.
func eachItemOnceInOrder(log []check.Event) error {
	put, took := map[int]bool{}, map[int]bool{}
	last := map[string]int{} // consumer and producer -> the item it got last
	for _, e := range log {
		switch e.What {
		case "put":
			put[e.N] = true
		case "took":
			from := fmt.Sprint(e.Who, e.N/100)
			if got, ok := last[from]; ok && got > e.N {
				return fmt.Errorf("%v after item %d of the same producer", e, got)
			}
			if !put[e.N] || took[e.N] {
				return fmt.Errorf("%v: not put, or taken before", e)
			}
			took[e.N] = true
			last[from] = e.N
		}
	}
	if len(took) != producers*itemsEach {
		return fmt.Errorf("%d items taken, want %d", len(took), producers*itemsEach)
	}
	return nil
}
