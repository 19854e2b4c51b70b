package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// BusStop is the Senate bus: riders wait at the stop; a bus that comes
// takes those waiting, up to its capacity, and leaves; riders who come
// while it boards wait for the next.
//
// Riders count themselves waiting under the mutex. A bus takes the mutex
// and keeps it while it boards, so that nobody who comes meanwhile is
// counted; it lets its share of the counted riders through one at a time,
// waiting for each to board.
type BusStop struct {
	capacity int
	mutex    sem.Semaphore // one permit: guards waiting; held by a boarding bus
	waiting  int
	bus      sem.Semaphore // a seat on the bus at the stop
	boarded  sem.Semaphore // a rider has boarded
}

// NewBusStop returns an empty stop served by buses of capacity seats.
func NewBusStop(newSemaphore NewSemaphore, capacity int) *BusStop {
	return &BusStop{
		capacity: capacity,
		mutex:    newSemaphore(1, 1),
		bus:      newSemaphore(1, 0),
		boarded:  newSemaphore(1, 0),
	}
}

// Rider waits at the stop for a bus and boards it.
func (s *BusStop) Rider(ctx context.Context, board func()) error {
	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	s.waiting++
	s.mutex.Release(1)
	if err := s.bus.Acquire(ctx, 1); err != nil {
		return err
	}
	board()
	s.boarded.Release(1)
	return nil
}

// Bus takes the riders waiting, up to its capacity, and departs.
func (s *BusStop) Bus(ctx context.Context, depart func()) error {
	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	n := min(s.waiting, s.capacity)
	for range n {
		s.bus.Release(1)
		if err := s.boarded.Acquire(ctx, 1); err != nil {
			return err
		}
	}
	s.waiting -= n
	s.mutex.Release(1)
	depart()
	return nil
}
