package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// Pot is the dining savages' pot: savages serve themselves one serving at
// a time, and the one who finds the pot empty wakes the cook and waits
// while the cook fills it, holding the others off.
type Pot struct {
	size     int
	mutex    sem.Semaphore // one permit: guards servings, held across a refill
	servings int
	empty    sem.Semaphore // wakes the cook
	full     sem.Semaphore // the cook has filled the pot
}

// NewPot returns an empty pot that holds size servings.
func NewPot(newSemaphore NewSemaphore, size int) *Pot {
	return &Pot{
		size:  size,
		mutex: newSemaphore(1, 1),
		empty: newSemaphore(1, 0),
		full:  newSemaphore(1, 0),
	}
}

// Savage takes one serving, getting the pot refilled first if it is empty;
// getServing is called with the pot held.
func (p *Pot) Savage(ctx context.Context, getServing func()) error {
	if err := p.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	defer p.mutex.Release(1)
	if p.servings == 0 {
		p.empty.Release(1)
		if err := p.full.Acquire(ctx, 1); err != nil {
			return err
		}
		p.servings = p.size
	}
	p.servings--
	getServing()
	return nil
}

// Cook fills the pot with fill each time a savage finds it empty, until
// ctx is done.
func (p *Pot) Cook(ctx context.Context, fill func(servings int)) error {
	for {
		if err := p.empty.Acquire(ctx, 1); err != nil {
			return err
		}
		fill(p.size)
		p.full.Release(1)
	}
}
