package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// ChildrenPerAdult is how many children one adult may look after.
const ChildrenPerAdult = 3

// ChildCare is the child care center: children stay only while there are
// enough adults, and an adult leaves only if the children left have enough
// adults.
//
// A semaphore counts the children the adults present can still take in:
// an adult who comes adds ChildrenPerAdult permits, a child takes one
// while it stays, and an adult who wants to leave takes ChildrenPerAdult
// back, all at once. Taking them at once is what a weighted Acquire gives:
// taken one by one, an adult could hold two and wait for the third while a
// child who could have come in waits too.
type ChildCare struct {
	places sem.Semaphore // places for children; size: the most adults at once
}

// NewChildCare returns an empty center for at most adults adults at once.
func NewChildCare(newSemaphore NewSemaphore, adults int) *ChildCare {
	return &ChildCare{places: newSemaphore(int64(adults*ChildrenPerAdult), 0)}
}

// Child waits for a place, stays, and leaves.
func (c *ChildCare) Child(ctx context.Context, stay func()) error {
	if err := c.places.Acquire(ctx, 1); err != nil {
		return err
	}
	stay()
	c.places.Release(1)
	return nil
}

// Adult comes in, stays, and leaves once the children left do not need it.
func (c *ChildCare) Adult(ctx context.Context, stay func()) error {
	c.places.Release(ChildrenPerAdult)
	stay()
	return c.places.Acquire(ctx, ChildrenPerAdult)
}
