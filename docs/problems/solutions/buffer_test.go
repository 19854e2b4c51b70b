package solutions_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/solutions"
)

type buffer interface {
	Put(ctx context.Context, item int) error
	Take(ctx context.Context) (int, error)
}

const (
	bufferCapacity = 3
	producers      = 3
	itemsEach      = 5 // per producer, and per consumer
)

// One consumer comes at once, to an empty buffer; the producers come at 5
// and the other consumers only at 50, so the producers fill the buffer.
var bufferProblem = check.Problem[func(solutions.NewSemaphore, int) buffer]{
	Seeds: seeds,
	Scenario: func(r *check.Run, newBuffer func(solutions.NewSemaphore, int) buffer) {
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

// unbounded keeps its items in a growing slice: nothing stops a producer.
type unbounded struct {
	mutex, items sem.Semaphore
	queue        []int
}

func (b *unbounded) Put(ctx context.Context, item int) error {
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	b.queue = append(b.queue, item)
	b.mutex.Release(1)
	b.items.Release(1)
	return nil
}

func (b *unbounded) Take(ctx context.Context) (int, error) {
	if err := b.items.Acquire(ctx, 1); err != nil {
		return 0, err
	}
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return 0, err
	}
	item := b.queue[0]
	b.queue = b.queue[1:]
	b.mutex.Release(1)
	return item, nil
}

// lockThenWait is the unbounded buffer with a bound, whose Take takes
// the mutex before it waits for an item: a consumer at an empty buffer
// shuts the producers out.
type lockThenWait struct {
	unbounded
	spaces sem.Semaphore
}

func (b *lockThenWait) Put(ctx context.Context, item int) error {
	if err := b.spaces.Acquire(ctx, 1); err != nil {
		return err
	}
	return b.unbounded.Put(ctx, item)
}

func (b *lockThenWait) Take(ctx context.Context) (int, error) {
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return 0, err
	}
	if err := b.items.Acquire(ctx, 1); err != nil {
		return 0, err
	}
	item := b.queue[0]
	b.queue = b.queue[1:]
	b.mutex.Release(1)
	b.spaces.Release(1)
	return item, nil
}

func TestProducerConsumer(t *testing.T) {
	type solution = func(solutions.NewSemaphore, int) buffer
	check.Judge(t, bufferProblem,
		func(n solutions.NewSemaphore, capacity int) buffer { return solutions.NewBuffer[int](n, capacity) },
		check.Wrong[solution]{
			Name: "Unbounded",
			Solution: func(n solutions.NewSemaphore, _ int) buffer {
				return &unbounded{mutex: n(1, 1), items: n(producers*itemsEach, 0)}
			},
			Want: "items stored in a buffer of 3",
		},
		check.Wrong[solution]{
			Name: "LockThenWait",
			Solution: func(n solutions.NewSemaphore, capacity int) buffer {
				return &lockThenWait{
					unbounded: unbounded{mutex: n(1, 1), items: n(int64(capacity), 0)},
					spaces:    n(int64(capacity), int64(capacity)),
				}
			},
			Want: "deadlock",
		})
}
