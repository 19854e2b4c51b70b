// Package chansem is a semaphore built on a buffered channel: the idiom every
// Go programmer meets first, made to keep the whole semacat contract.
//
// It keeps the whole sem contract, its exact over-release check included.
// Beyond it: single-permit requests are served in arrival order, TryAcquire
// never takes a permit while an Acquire waits, and no request is starved. A
// request for several permits gathers them one at a time, one such request
// at a time, so it is served neither in strict arrival order nor quickly
// under load. It implements sync.Locker and sem.Observer, and NewAvailable
// starts it with fewer free permits than its size; it offers neither Resize
// nor Close.
//
// Choose chansem for single-permit limits where simplicity and FIFO order
// matter; choose weighted for requests of mixed weights, or for a limit
// that must be resized or closed. Every permit taken is a value in the
// channel, so Acquire(ctx, n), Release(n) and NewAvailable take time in
// proportion to the permits they move: a size that counts goroutines or
// connections suits chansem, one that counts bytes does not.
//
//	s := chansem.New(3) // three workers at once
//	if err := s.Acquire(ctx, 1); err != nil {
//		return err // ctx is done: nothing was acquired
//	}
//	defer s.Release(1)
//
// How it works, and why it offers no Resize and no Close, is told in a
// comment in design.go and, with diagrams and measurements, in the course's
// page at https://github.com/semacat/sem/blob/main/docs/chansem.md.
package chansem

import (
	"context"
	"sync/atomic"

	"github.com/semacat/sem/internal/check"
	"github.com/semacat/sem/internal/observe"
)

const pkg check.Pkg = "chansem"

// Semaphore is a counting semaphore over a buffered channel. It implements
// sem.Semaphore, sync.Locker and sem.Observer. The zero value is not
// usable; call New or NewAvailable.
type Semaphore struct {
	slots chan struct{} // one value per permit taken or being gathered
	gate  chan struct{} // held by the one multi-permit request gathering permits
	held  atomic.Int64  // permits of completed acquisitions, not yet released
	multi atomic.Uint64 // multi-permit Acquires: started<<multiShift | in progress
	size  int64

	waits  atomic.Int64 // Acquire calls waiting
	extra  atomic.Int64 // permits they ask for beyond one each
	onWait observe.Hook
	test   *testHooks // nil outside tests
}

// testHooks are functions a test installs on one semaphore, to run at the
// moments their fields name.
type testHooks struct {
	// send runs just before a waiter's send, the moment at which the
	// send and the context may both become ready.
	send func()
	// release runs in Release(n > 1) between the check that n permits
	// are held and their return.
	release func()
}

// The word multi counts in its low half the multi-permit Acquires in
// progress and in its high half those ever started, which wraps harmlessly:
// TryAcquire only compares two readings a few instructions apart.
const (
	multiShift = 32
	multiStart = 1<<multiShift | 1 // one more started, one more in progress
	multiEnd   = ^uint64(0)        // one fewer in progress
	multiLive  = 1<<multiShift - 1 // mask of the count in progress
)

// New returns a semaphore with size permits, all free. It panics if size is
// less than 1.
func New(size int64) *Semaphore {
	pkg.PanicIfBadSize("New", size, check.Unbounded)
	return newSemaphore(size, size)
}

// NewAvailable returns a semaphore with size permits of which only available
// are free: it starts as if size-available permits were held, so Release may
// give back that many more than were acquired. NewAvailable(1, 0) is a
// signalling semaphore: Acquire waits for another goroutine's Release(1).
// It sends size-available values into the channel, so its time grows with
// them. It panics if size is less than 1 or available is not between 0 and
// size.
func NewAvailable(size, available int64) *Semaphore {
	pkg.PanicIfBadAvailable("NewAvailable", size, available, check.Unbounded)
	return newSemaphore(size, available)
}

func newSemaphore(size, available int64) *Semaphore {
	s := &Semaphore{
		slots: make(chan struct{}, size),
		gate:  make(chan struct{}, 1),
		size:  size,
	}
	for range size - available {
		s.slots <- struct{}{}
	}
	s.held.Store(size - available)
	return s
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
// waits, before its permits are granted, it gives back any permits it
// gathered and returns ctx.Err(), also when its last permit came in the
// same instant. If n exceeds the size it
// returns at once an error wrapping sem.ErrExceedsSize. Acquire(ctx, 0)
// returns ctx.Err() without blocking. It panics if n < 0.
func (s *Semaphore) Acquire(ctx context.Context, n int64) error {
	if n == 1 {
		// The common case first: one permit is never a bad weight and
		// always fits, so it needs only a send and a look at the
		// context, in grant, after the send: looked at before it, the
		// context could be canceled, and a slot freed, between the look
		// and the send. A done context may so hold a slot for a moment,
		// never counted held.
		select {
		case s.slots <- struct{}{}:
			return s.grant(ctx, 1)
		default:
			if err := ctx.Err(); err != nil {
				return err
			}
			return s.waitOne(ctx)
		}
	}
	if err := pkg.ErrAcquire(ctx, n, s.size); err != nil || n == 0 {
		return err
	}
	return s.acquireMany(ctx, n)
}

// waitOne waits for a single permit or for ctx to be done.
func (s *Semaphore) waitOne(ctx context.Context) error {
	w := waiting{s: s, n: 1}
	w.start()
	if err := s.send(ctx, &w); err != nil {
		return w.end(err)
	}
	return w.end(s.grant(ctx, 1))
}

// acquireMany gathers n > 1 permits one at a time, holding the gate so that
// no other multi-permit request gathers at the same time. It counts as
// waiting from the first step that would block.
func (s *Semaphore) acquireMany(ctx context.Context, n int64) error {
	s.multi.Add(multiStart)
	defer s.multi.Add(multiEnd)
	w := waiting{s: s, n: n}
	select {
	case s.gate <- struct{}{}:
	default:
		w.start()
		select {
		case s.gate <- struct{}{}:
		case <-ctx.Done():
			return w.end(ctx.Err())
		}
	}
	defer func() { <-s.gate }()
	for got := range n {
		if err := s.send(ctx, &w); err != nil {
			s.giveBack(got)
			return w.end(err)
		}
	}
	return w.end(s.grant(ctx, n))
}

// grant ends an Acquire(ctx, n) that has taken its n slots. The
// slots are not yet held by anyone, so nobody else can release them; the
// grant is the moment they are counted held. If ctx is done by then, the
// cancellation came first: grant gives the slots back and returns
// ctx.Err(). Otherwise it counts them held and returns nil, and the grant is
// final.
func (s *Semaphore) grant(ctx context.Context, n int64) error {
	if err := ctx.Err(); err != nil {
		s.giveBack(n)
		return err
	}
	s.held.Add(n)
	return nil
}

// send takes one slot for the waiter w. Unless w already waits, it first
// tries to take one at once; then it counts w as waiting until a slot frees
// or ctx is done. It returns nil if it took the slot, else ctx.Err().
func (s *Semaphore) send(ctx context.Context, w *waiting) error {
	if t := s.test; t != nil && t.send != nil {
		t.send()
	}
	if !w.started {
		select {
		case s.slots <- struct{}{}:
			return nil
		default:
		}
		w.start()
	}
	done := ctx.Done()
	if done == nil {
		// A context that can never be done (context.Background) needs no
		// select: a bare send parks directly in the channel's queue,
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

// TryAcquire takes n permits only if it can do so at once, and reports
// whether it did. It takes all n or none, and fails while an Acquire waits
// and while a multi-permit Acquire is in progress, even one that need not
// wait.
// TryAcquire(0) reports true. It panics if n < 0.
func (s *Semaphore) TryAcquire(n int64) bool {
	pkg.PanicIfNegative("TryAcquire", n)
	switch {
	case n == 0:
		return true
	case n == 1:
		return s.tryOne()
	case n > s.size:
		return false
	}
	return s.tryMany(n)
}

// tryOne takes one slot unless a sender is parked or a multi-permit Acquire
// was in progress at any moment of the attempt.
func (s *Semaphore) tryOne() bool {
	m := s.multi.Load()
	if m&multiLive != 0 {
		return false
	}
	select {
	case s.slots <- struct{}{}:
	default:
		return false
	}
	if s.multi.Load() != m {
		s.giveBack(1)
		return false
	}
	s.held.Add(1)
	return true
}

// tryMany takes n > 1 slots if they are all free. It holds the gate, so no
// gatherer is at work, and a parked sender means a full buffer, so it passes
// nobody.
func (s *Semaphore) tryMany(n int64) bool {
	select {
	case s.gate <- struct{}{}:
	default:
		return false // a multi-permit Acquire is gathering
	}
	defer func() { <-s.gate }()
	for got := range n {
		select {
		case s.slots <- struct{}{}:
		default:
			s.giveBack(got)
			return false
		}
	}
	s.held.Add(n)
	return true
}

// Release returns n permits, waking waiters in arrival order. It panics if n
// is negative or more than the permits held; the check happens before any
// permit is returned.
func (s *Semaphore) Release(n int64) {
	if n == 1 {
		if held, ok := s.unhold(1); !ok {
			pkg.PanicOverRelease(1, held)
		}
		<-s.slots
		return
	}
	pkg.PanicIfNegative("Release", n)
	if held, ok := s.unhold(n); !ok {
		pkg.PanicOverRelease(n, held)
	}
	if t := s.test; t != nil && t.release != nil {
		t.release()
	}
	s.giveBack(n)
}

// unhold takes n permits off the count of held ones and reports true, or
// changes nothing and reports false with the count if fewer are held.
func (s *Semaphore) unhold(n int64) (held int64, ok bool) {
	for {
		held = s.held.Load()
		if n > held {
			return held, false
		}
		if s.held.CompareAndSwap(held, held-n) {
			return held - n, true
		}
	}
}

// giveBack receives n values the caller owns in the buffer: slots it took
// and has not counted as held, or held permits it has just taken off the
// count. They are there, so no receive blocks.
func (s *Semaphore) giveBack(n int64) {
	for range n {
		<-s.slots
	}
}

// Lock takes one permit, blocking until it is available, so that a
// semaphore of size 1 can stand in for a sync.Mutex.
func (s *Semaphore) Lock() {
	s.slots <- struct{}{}
	s.held.Add(1)
}

// Unlock returns one permit. It panics if no permit is held, where a bare
// channel receive would block forever.
func (s *Semaphore) Unlock() {
	if _, ok := s.unhold(1); !ok {
		pkg.PanicOverUnlock()
	}
	<-s.slots
}
