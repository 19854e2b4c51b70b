package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// Coaster is the roller coaster: a car of seats seats that runs only full;
// passengers board while it loads and leave while it unloads.
//
// The car signals boardQueue seats times when it loads and unboardQueue
// seats times when it unloads; passengers count themselves aboard (and
// ashore) under a mutex, and the last of each count signals the car.
type Coaster struct {
	seats        int
	mutex        sem.Semaphore // one permit: guards boarded and unboarded
	boarded      int
	unboarded    int
	boardQueue   sem.Semaphore // the car is loading: one permit per seat
	unboardQueue sem.Semaphore // the car is unloading: one permit per seat
	allAboard    sem.Semaphore
	allAshore    sem.Semaphore
}

// NewCoaster returns a car of seats seats, empty, not yet loading.
func NewCoaster(newSemaphore NewSemaphore, seats int) *Coaster {
	s := int64(seats)
	return &Coaster{
		seats:        seats,
		mutex:        newSemaphore(1, 1),
		boardQueue:   newSemaphore(s, 0),
		unboardQueue: newSemaphore(s, 0),
		allAboard:    newSemaphore(1, 0),
		allAshore:    newSemaphore(1, 0),
	}
}

// Car loads, waits for every seat to be taken, runs, unloads, and waits
// for everyone to leave, until ctx is done.
func (c *Coaster) Car(ctx context.Context, load, run, unload func()) error {
	for {
		load()
		c.boardQueue.Release(int64(c.seats))
		if err := c.allAboard.Acquire(ctx, 1); err != nil {
			return err
		}
		run()
		unload()
		c.unboardQueue.Release(int64(c.seats))
		if err := c.allAshore.Acquire(ctx, 1); err != nil {
			return err
		}
	}
}

// Passenger waits for the car to load, boards, waits for it to unload,
// and leaves.
func (c *Coaster) Passenger(ctx context.Context, board, unboard func()) error {
	if err := c.step(ctx, c.boardQueue, board, &c.boarded, c.allAboard); err != nil {
		return err
	}
	return c.step(ctx, c.unboardQueue, unboard, &c.unboarded, c.allAshore)
}

// step waits on queue, calls do, and counts the passenger; the last of
// the car's seats resets the count and signals last.
func (c *Coaster) step(ctx context.Context, queue sem.Semaphore, do func(), count *int, last sem.Semaphore) error {
	if err := queue.Acquire(ctx, 1); err != nil {
		return err
	}
	do()
	if err := c.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	defer c.mutex.Release(1)
	if *count++; *count == c.seats {
		*count = 0
		last.Release(1)
	}
	return nil
}
