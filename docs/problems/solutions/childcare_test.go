package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// countedCare counts children and adults under a mutex; a child who finds
// no room waits on a queue, and an adult who may not leave waits on
// another; whoever changes the counts wakes those who may now go on.
type countedCare struct {
	mutex, childQ, adultQ          sem.Semaphore
	children, adults               int
	childrenWaiting, adultsWaiting int
}

func newCountedCare(n check.NewSemaphore) judge.ChildCare {
	return &countedCare{mutex: n(1, 1), childQ: n(64, 0), adultQ: n(64, 0)}
}

func (c *countedCare) Child(ctx context.Context, stay func()) error {
	if err := c.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	if c.children+1 > judge.ChildrenPerAdult*c.adults {
		c.childrenWaiting++
		c.mutex.Release(1)
		if err := c.childQ.Acquire(ctx, 1); err != nil { // counted in by the waker
			return err
		}
	} else {
		c.children++
		c.mutex.Release(1)
	}
	stay()
	if err := c.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	c.children--
	c.wake()
	c.mutex.Release(1)
	return nil
}

func (c *countedCare) Adult(ctx context.Context, stay func()) error {
	if err := c.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	c.adults++
	c.wake()
	c.mutex.Release(1)
	stay()
	if err := c.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	if c.children > judge.ChildrenPerAdult*(c.adults-1) {
		c.adultsWaiting++
		c.mutex.Release(1)
		return c.adultQ.Acquire(ctx, 1) // counted out by the waker
	}
	c.adults--
	c.mutex.Release(1)
	return nil
}

// wake lets out the waiting adults and children who may now go, counting
// them for them. The caller holds the mutex.
func (c *countedCare) wake() {
	for c.adultsWaiting > 0 && c.children <= judge.ChildrenPerAdult*(c.adults-1) {
		c.adultsWaiting--
		c.adults--
		c.adultQ.Release(1)
	}
	for c.childrenWaiting > 0 && c.children+1 <= judge.ChildrenPerAdult*c.adults {
		c.childrenWaiting--
		c.children++
		c.childQ.Release(1)
	}
}

// leavesAnyway is the center whose adults leave without taking their
// places back.
type leavesAnyway struct{ places sem.Semaphore }

func (c leavesAnyway) Child(ctx context.Context, stay func()) error {
	if err := c.places.Acquire(ctx, 1); err != nil {
		return err
	}
	stay()
	c.places.Release(1)
	return nil
}

func (c leavesAnyway) Adult(_ context.Context, stay func()) error {
	c.places.Release(judge.ChildrenPerAdult)
	stay()
	return nil
}

func TestChildCare(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.ChildCare
	judgeAll(t, judge.Problem25,
		official(func(n check.NewSemaphore) judge.ChildCare { return solutions.NewChildCare(n, 3) },
			check.Right[solution]{Name: "Counted", Solution: newCountedCare}),
		check.Wrong[solution]{
			Name:     "LeavesAnyway",
			Solution: func(n check.NewSemaphore) judge.ChildCare { return leavesAnyway{n(9, 0)} },
			Want:     "4 children stay, with adults enough for 3",
		})
}
