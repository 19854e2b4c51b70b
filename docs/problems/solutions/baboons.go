package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// RopeHolds is how many baboons the rope holds.
const RopeHolds = 5

// Rope is the baboon crossing: baboons going one way share the rope, up to
// RopeHolds of them, and keep those going the other way off it.
//
// Each direction is a lightswitch on the rope, and a multiplex of
// RopeHolds places, shared by both directions since they never mix,
// bounds how many are on it. A steady stream one way keeps the other way
// waiting.
type Rope struct {
	rope       sem.Semaphore // one permit: held by one direction's baboons
	east, west *Lightswitch
	places     sem.Semaphore
}

// NewRope returns an empty rope.
func NewRope(newSemaphore NewSemaphore) *Rope {
	return &Rope{
		rope:   newSemaphore(1, 1),
		east:   NewLightswitch(newSemaphore),
		west:   NewLightswitch(newSemaphore),
		places: newSemaphore(RopeHolds, RopeHolds),
	}
}

// East crosses going east.
func (r *Rope) East(ctx context.Context, cross func()) error { return r.cross(ctx, r.east, cross) }

// West crosses going west.
func (r *Rope) West(ctx context.Context, cross func()) error { return r.cross(ctx, r.west, cross) }

func (r *Rope) cross(ctx context.Context, way *Lightswitch, cross func()) error {
	if err := way.Lock(ctx, r.rope); err != nil {
		return err
	}
	if err := r.places.Acquire(ctx, 1); err != nil {
		return err
	}
	cross()
	r.places.Release(1)
	return way.Unlock(ctx, r.rope)
}
