// Package fairsem is a solution to exercise 5 of docs/exercises.md: two fair
// semaphores that differ in one decision, to show what claiming FIFO adds to
// UnitFIFO.
//
// Both keep the waiters in a queue in arrival order. Whoever frees permits
// (a Release, or a canceled waiter leaving the queue) walks the queue from
// its head and grants each waiter its permits through the waiter's own
// channel, so no waiter wakes for nothing. TryAcquire, and an Acquire that
// finds permits free, refuse while anybody is queued: no barging.
//
// The decision is what the walk does at a waiter that does not fit:
//
//   - NewFirstFit passes it and goes on, so a small request may overtake a
//     larger one that arrived first. Permits never idle while a waiter that
//     fits is queued, and single-permit requests keep their arrival order (a
//     request of one fits whenever anything is free), but a large request
//     can wait forever while small ones keep arriving. It claims UnitFIFO
//     and NoBarging.
//   - NewFIFO stops there: the head blocks everyone behind it. Permits may
//     idle while the head waits for more, but requests of any weight are
//     served in arrival order, and a large request is served once the
//     permits ahead of it come back. It claims FIFO, NoBarging and
//     NoStarvation.
//
// The argument checks (args.go) give the messages every semacat strategy
// gives for bad input, as in mysem; they are written out so that the
// solution builds in a module of its own.
package fairsem

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// Semaphore is a counting semaphore with a queue of waiters.
type Semaphore struct {
	mu       sync.Mutex
	size     int64
	held     int64     // granted and not released, waiters' grants included
	queue    []*waiter // in arrival order
	firstFit bool      // the walk passes a waiter that does not fit
}

// waiter is one Acquire that found no room.
type waiter struct {
	ctx  context.Context
	n    int64
	err  error         // set, under mu, if the walk failed it: ctx was done first
	done chan struct{} // closed, under mu, once it is granted (its n permits counted in held) or failed
}

// NewFIFO returns a semaphore with size permits that serves requests of any
// weight in arrival order. It panics if size is less than 1.
func NewFIFO(size int64) *Semaphore { return newSemaphore("NewFIFO", size, false) }

// NewFirstFit returns a semaphore with size permits that serves, in arrival
// order, every waiter that fits, passing those that do not. It panics if
// size is less than 1.
func NewFirstFit(size int64) *Semaphore { return newSemaphore("NewFirstFit", size, true) }

func newSemaphore(ctor string, size int64, firstFit bool) *Semaphore {
	if size < 1 {
		panic(fmt.Sprintf("%s: %s(%d): size must be at least 1", pkg, ctor, size))
	}
	return &Semaphore{size: size, firstFit: firstFit}
}

// Acquire takes n permits, blocking until they are granted or ctx is done.
func (s *Semaphore) Acquire(ctx context.Context, n int64) error {
	if err := errAcquire(ctx, n, s.size); err != nil || n == 0 {
		return err
	}
	s.mu.Lock()
	if s.take(n) {
		s.mu.Unlock()
		return nil
	}
	w := &waiter{ctx: ctx, n: n, done: make(chan struct{})}
	s.queue = append(s.queue, w)
	s.mu.Unlock()

	select {
	case <-w.done:
		return w.err // nil if granted
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-w.done:
		// The walk reached w before it saw ctx.Done(): the walk looked at
		// ctx, so a grant it made came first and is final, and a failure
		// stands.
		return w.err
	default:
	}
	s.queue = slices.DeleteFunc(s.queue, func(q *waiter) bool { return q == w })
	s.grant()
	return ctx.Err()
}

// TryAcquire takes n permits only if they are free and nobody is queued,
// and reports whether it did. TryAcquire(0) reports true.
func (s *Semaphore) TryAcquire(n int64) bool {
	panicIfNegative("TryAcquire", n)
	if n == 0 {
		return true // a no-op, even while waiters are queued
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.take(n)
}

// Release gives back n permits and grants them to the waiters they let in.
// It panics, before changing anything, if fewer than n are held.
func (s *Semaphore) Release(n int64) {
	panicIfNegative("Release", n)
	s.mu.Lock()
	defer s.mu.Unlock()
	if n > s.held {
		panicOverRelease(n, s.held)
	}
	s.held -= n
	s.grant()
}

// take takes n permits if they are free and no waiter is queued ahead, and
// reports whether it did. The caller holds mu.
func (s *Semaphore) take(n int64) bool {
	if len(s.queue) > 0 || s.held+n > s.size {
		return false
	}
	s.held += n
	return true
}

// grant walks the queue from its head and grants every waiter that fits,
// stopping at the first that does not unless the semaphore is first-fit. It
// looks at each waiter's context first and fails a waiter whose context is
// done: that cancellation came before the grant, so it wins, and a grant
// once made is final. The caller holds mu.
func (s *Semaphore) grant() {
	waiting := s.queue[:0]
	blocked := false
	for _, w := range s.queue {
		if err := w.ctx.Err(); err != nil {
			w.err = err
			close(w.done)
			continue
		}
		if blocked || s.held+w.n > s.size {
			waiting = append(waiting, w)
			blocked = !s.firstFit
			continue
		}
		s.held += w.n
		close(w.done)
	}
	clear(s.queue[len(waiting):])
	s.queue = waiting
}
