package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// BathroomSize is how many people the bathroom holds at once.
const BathroomSize = 3

// Bathroom is the unisex bathroom: women and men never in at once, and at
// most BathroomSize in.
//
// Each sex is a lightswitch on empty, as readers are on a room: the first
// woman in locks out the men, the last woman out lets them in. Inside the
// switch, a multiplex of BathroomSize seats per sex bounds how many are in.
// A steady stream of one sex can keep the other out.
type Bathroom struct {
	empty       sem.Semaphore // one permit: held by the women, or by the men
	women, men  *Lightswitch
	womenStalls sem.Semaphore
	menStalls   sem.Semaphore
}

// NewBathroom returns an empty bathroom.
func NewBathroom(newSemaphore NewSemaphore) *Bathroom {
	return &Bathroom{
		empty:       newSemaphore(1, 1),
		women:       NewLightswitch(newSemaphore),
		men:         NewLightswitch(newSemaphore),
		womenStalls: newSemaphore(BathroomSize, BathroomSize),
		menStalls:   newSemaphore(BathroomSize, BathroomSize),
	}
}

// Woman waits until no man is in and a stall is free, then calls use.
func (b *Bathroom) Woman(ctx context.Context, use func()) error {
	return b.visit(ctx, b.women, b.womenStalls, use)
}

// Man waits until no woman is in and a stall is free, then calls use.
func (b *Bathroom) Man(ctx context.Context, use func()) error {
	return b.visit(ctx, b.men, b.menStalls, use)
}

func (b *Bathroom) visit(ctx context.Context, sex *Lightswitch, stalls sem.Semaphore, use func()) error {
	if err := sex.Lock(ctx, b.empty); err != nil {
		return err
	}
	if err := stalls.Acquire(ctx, 1); err != nil {
		return err
	}
	use()
	stalls.Release(1)
	return sex.Unlock(ctx, b.empty)
}
