package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// Signal lets one goroutine tell another that something has happened.
type Signal struct {
	happened sem.Semaphore // no permit until Send
}

// NewSignal returns a signal that has not been sent.
func NewSignal(newSemaphore NewSemaphore) *Signal {
	return &Signal{happened: newSemaphore(1, 0)}
}

// Send says that it has happened. Send once.
func (s *Signal) Send() { s.happened.Release(1) }

// Wait returns once Send has been called.
func (s *Signal) Wait(ctx context.Context) error { return s.happened.Acquire(ctx, 1) }

// Rendezvous makes two goroutines, A and B, wait for each other: neither
// returns from its call before the other has made its own.
type Rendezvous struct {
	aArrived sem.Semaphore
	bArrived sem.Semaphore
}

// NewRendezvous returns a rendezvous for one meeting.
func NewRendezvous(newSemaphore NewSemaphore) *Rendezvous {
	return &Rendezvous{aArrived: newSemaphore(1, 0), bArrived: newSemaphore(1, 0)}
}

// A is A's side: announce, then wait for B.
func (r *Rendezvous) A(ctx context.Context) error {
	r.aArrived.Release(1)
	return r.bArrived.Acquire(ctx, 1)
}

// B is B's side: announce, then wait for A.
func (r *Rendezvous) B(ctx context.Context) error {
	r.bArrived.Release(1)
	return r.aArrived.Acquire(ctx, 1)
}
