package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// Cars is the roller coaster with several cars on one track: the cars
// load one at a time, in turn, and unload one at a time, in the same turn,
// while the others run.
//
// Each car waits for its turn at the loading area and at the unloading
// area, one semaphore per car for each, and gives the turn to the next
// car as it leaves. Passengers board whichever car loads, noting which
// it is, and wait to get off at that car's own queue: with one queue for
// all the cars, a passenger of a running car could take the place of one
// whose car unloads.
type Cars struct {
	seats        int
	mutex        sem.Semaphore // one permit: guards the counts and loading
	boarded      int
	unboarded    int
	loading      int             // the car that loads
	loadingArea  []sem.Semaphore // loadingArea[i]: car i's turn to load
	unloadArea   []sem.Semaphore // unloadArea[i]: car i's turn to unload
	boardQueue   sem.Semaphore
	unboardQueue []sem.Semaphore // unboardQueue[i]: car i unloads
	allAboard    sem.Semaphore
	allAshore    sem.Semaphore
}

// NewCars returns cars cars of seats seats; car 0 loads first.
func NewCars(newSemaphore NewSemaphore, cars, seats int) *Cars {
	s := int64(seats)
	c := &Cars{
		seats:      seats,
		mutex:      newSemaphore(1, 1),
		boardQueue: newSemaphore(s, 0),
		allAboard:  newSemaphore(1, 0),
		allAshore:  newSemaphore(1, 0),
	}
	for i := range cars {
		first := int64(0)
		if i == 0 {
			first = 1
		}
		c.loadingArea = append(c.loadingArea, newSemaphore(1, first))
		c.unloadArea = append(c.unloadArea, newSemaphore(1, first))
		c.unboardQueue = append(c.unboardQueue, newSemaphore(s, 0))
	}
	return c
}

// Car is car car: in its turn it loads until full, runs, and in its turn
// unloads, until ctx is done.
func (c *Cars) Car(ctx context.Context, car int, load, run, unload func()) error {
	next := (car + 1) % len(c.loadingArea)
	for {
		if err := c.loadingArea[car].Acquire(ctx, 1); err != nil {
			return err
		}
		load()
		c.loading = car // read by the boarders, after the boardQueue's permits
		c.boardQueue.Release(int64(c.seats))
		if err := c.allAboard.Acquire(ctx, 1); err != nil {
			return err
		}
		c.loadingArea[next].Release(1)
		run()
		if err := c.unloadArea[car].Acquire(ctx, 1); err != nil {
			return err
		}
		unload()
		c.unboardQueue[car].Release(int64(c.seats))
		if err := c.allAshore.Acquire(ctx, 1); err != nil {
			return err
		}
		c.unloadArea[next].Release(1)
	}
}

// Passenger boards the car that loads and gets off when it unloads.
func (c *Cars) Passenger(ctx context.Context, board, unboard func()) error {
	if err := c.boardQueue.Acquire(ctx, 1); err != nil {
		return err
	}
	board()
	car := c.loading
	if err := c.count(ctx, &c.boarded, c.allAboard); err != nil {
		return err
	}
	if err := c.unboardQueue[car].Acquire(ctx, 1); err != nil {
		return err
	}
	unboard()
	return c.count(ctx, &c.unboarded, c.allAshore)
}

// count counts the passenger; the car's last resets the count and
// signals last.
func (c *Cars) count(ctx context.Context, n *int, last sem.Semaphore) error {
	if err := c.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	defer c.mutex.Release(1)
	if *n++; *n == c.seats {
		*n = 0
		last.Release(1)
	}
	return nil
}
