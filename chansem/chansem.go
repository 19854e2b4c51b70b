// Package chansem is a semaphore built on a buffered channel: the idiom every
// Go programmer meets first, made to keep the whole semacat contract.
//
// # Design
//
// The channel has one buffer slot per permit. Acquiring a permit sends a value
// into the channel; releasing one receives a value out of it. The number of
// values in the buffer is the number of permits held, and the runtime's
// channel lock makes each step atomic.
//
// What the runtime gives for free: when the buffer is full, senders park in
// the channel's send queue in arrival order, and a receive hands the freed
// slot straight to the first of them (it copies that sender's value into the
// buffer before waking it). So single-permit requests are served first come,
// first served, a newcomer can never take a slot a parked sender is owed, and
// a non-blocking send (TryAcquire) fails while anyone is parked. Cancellation
// is a select between the send and ctx.Done(); a sender that gives up simply
// leaves the queue.
//
// What it does not give: weighted requests. A channel moves one value at a
// time, so Acquire(n) sends n values one after another. Two such requests
// gathering at once could each hold part of what the other needs and wait
// forever, so a multi-permit request first takes a gate (a channel of one
// slot, so that waiting for it can be canceled too) and only one gathers at
// a time. While it gathers it holds permits nobody can use, and each of its
// sends queues behind the single-permit senders already parked, so
// multi-permit requests are served neither in strict arrival order nor
// quickly under load; they are never starved, because every send eventually
// reaches the head of a FIFO queue. A canceled multi-permit request gives
// back what it gathered.
//
// Releasing more than is held would block forever on an empty channel; it
// panics instead, after checking the buffer length and before taking any
// value.
//
// Choose chansem for single-permit limits where simplicity and FIFO order
// matter; choose weighted for requests of mixed weights.
package chansem

import (
	"context"

	"github.com/semacat/sem/internal/check"
)

const pkg = "chansem"

// Semaphore is a counting semaphore over a buffered channel. It implements
// sem.Semaphore and sync.Locker. The zero value is not usable; call New.
type Semaphore struct {
	slots chan struct{} // one value per held permit
	gate  chan struct{} // held by the one multi-permit request gathering permits
	size  int64
}

// New returns a semaphore with size permits, all free. It panics if size is
// less than 1.
func New(size int64) *Semaphore {
	check.Size(pkg, size)
	return &Semaphore{
		slots: make(chan struct{}, size),
		gate:  make(chan struct{}, 1),
		size:  size,
	}
}

// Size returns the total number of permits.
func (s *Semaphore) Size() int64 { return s.size }

// Available returns the number of permits free at this instant. It is a
// snapshot for monitoring and teaching, stale as soon as it returns.
func (s *Semaphore) Available() int64 { return s.size - int64(len(s.slots)) }

// Acquire takes n permits, blocking until they are available or ctx is done.
// Single-permit requests are served in arrival order.
//
// On success it returns nil. If ctx is already done it returns ctx.Err()
// without acquiring, even when permits are free; if ctx is done while it
// waits, it gives back any permits it gathered and returns ctx.Err(). If n
// exceeds the size it returns at once an error wrapping sem.ErrExceedsSize.
// Acquire(ctx, 0) returns ctx.Err() without blocking. It panics if n < 0.
func (s *Semaphore) Acquire(ctx context.Context, n int64) error {
	if n == 1 {
		// The common case first: one permit is never a bad weight and
		// always fits, so it needs only the context check and a send.
		if err := ctx.Err(); err != nil {
			return err
		}
		select {
		case s.slots <- struct{}{}:
			return nil
		default:
			return s.waitOne(ctx)
		}
	}
	check.Weight(pkg, "Acquire", n)
	if n > s.size {
		return check.ExceedsSize(pkg, n, s.size)
	}
	if err := ctx.Err(); err != nil || n == 0 {
		return err
	}
	return s.acquireMany(ctx, n)
}

// waitOne waits for a single permit or for ctx to be done.
func (s *Semaphore) waitOne(ctx context.Context) error {
	done := ctx.Done()
	if done == nil {
		// A context that can never be done (context.Background) needs no
		// select: a plain send parks directly in the channel's queue,
		// which is what makes the raw channel fast under contention.
		s.slots <- struct{}{}
		return nil
	}
	select {
	case s.slots <- struct{}{}:
		return nil
	case <-done:
		return ctx.Err()
	}
}

// acquireMany gathers n > 1 permits one at a time, holding the gate so that
// no other multi-permit request gathers at the same time.
func (s *Semaphore) acquireMany(ctx context.Context, n int64) error {
	select {
	case s.gate <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.gate }()
	for got := int64(0); got < n; got++ {
		select {
		case s.slots <- struct{}{}:
		case <-ctx.Done():
			s.giveBack(got)
			return ctx.Err()
		}
	}
	return nil
}

// TryAcquire takes n permits only if it can do so at once, and reports
// whether it did. It takes all n or none, and fails while an Acquire waits.
// TryAcquire(0) reports true. It panics if n < 0.
func (s *Semaphore) TryAcquire(n int64) bool {
	check.Weight(pkg, "TryAcquire", n)
	switch {
	case n == 0:
		return true
	case n == 1:
		select {
		case s.slots <- struct{}{}:
			return true
		default:
			return false
		}
	case n > s.size:
		return false
	}
	select {
	case s.gate <- struct{}{}:
	default:
		return false // a multi-permit Acquire is gathering
	}
	defer func() { <-s.gate }()
	for got := int64(0); got < n; got++ {
		select {
		case s.slots <- struct{}{}:
		default:
			s.giveBack(got)
			return false
		}
	}
	return true
}

// Release returns n permits, waking waiters in arrival order. It panics if n
// is negative or more than the permits held; the check happens before any
// permit is returned.
func (s *Semaphore) Release(n int64) {
	if n == 1 {
		// The common case in one channel operation: a receive that finds
		// the buffer empty is itself the over-release check.
		select {
		case <-s.slots:
			return
		default:
			check.OverRelease(pkg, n, 0)
		}
	}
	check.Weight(pkg, "Release", n)
	if held := int64(len(s.slots)); n > held {
		check.OverRelease(pkg, n, held)
	}
	s.giveBack(n)
}

// giveBack returns n permits known to be held.
func (s *Semaphore) giveBack(n int64) {
	for range n {
		select {
		case <-s.slots:
		default:
			// Only a concurrent Release of permits this caller never held
			// can empty the buffer under us.
			check.OverRelease(pkg, n, int64(len(s.slots)))
		}
	}
}

// Lock takes one permit, blocking until it is available, so that a
// semaphore of size 1 can stand in for a sync.Mutex.
func (s *Semaphore) Lock() { s.slots <- struct{}{} }

// Unlock returns one permit. It panics if no permit is held, where a bare
// channel receive would block forever.
func (s *Semaphore) Unlock() {
	select {
	case <-s.slots:
	default:
		check.OverUnlock(pkg)
	}
}
