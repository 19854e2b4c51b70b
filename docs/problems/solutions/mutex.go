package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// Multiplex lets at most n goroutines run a critical section at once. With
// n = 1 it is a mutex.
type Multiplex struct {
	room sem.Semaphore // one permit per free seat
}

// NewMutex returns a multiplex of one seat.
func NewMutex(newSemaphore NewSemaphore) *Multiplex { return NewMultiplex(newSemaphore, 1) }

// NewMultiplex returns a multiplex of n seats.
func NewMultiplex(newSemaphore NewSemaphore, n int) *Multiplex {
	return &Multiplex{room: newSemaphore(int64(n), int64(n))}
}

// Do waits for a seat, runs critical, and gives the seat back.
func (m *Multiplex) Do(ctx context.Context, critical func()) error {
	if err := m.room.Acquire(ctx, 1); err != nil {
		return err
	}
	defer m.room.Release(1)
	critical()
	return nil
}
