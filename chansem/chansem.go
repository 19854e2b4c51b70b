// Package chansem is a semaphore built on a buffered channel: the idiom every
// Go programmer meets first, made to keep the whole semacat contract.
//
// # Design
//
// The channel has one buffer slot per permit. Taking a permit sends a value
// into the channel; giving one back receives a value out of it, and the
// runtime's channel lock makes each step atomic.
//
// What the runtime gives for free: when the buffer is full, senders park in
// the channel's send queue in arrival order, and a receive hands the freed
// slot straight to the first of them (it copies that sender's value into the
// buffer before waking it). So single-permit requests are served first come,
// first served, a newcomer can never take a slot a parked sender is owed, and
// a non-blocking send fails while anyone is parked. Cancellation is a select
// between the send and ctx.Done(); a sender that gives up simply leaves the
// queue.
//
// What it does not give: weighted requests. A channel moves one value at a
// time, so Acquire(n) sends n values one after another. Two such requests
// gathering at once could each hold part of what the other needs and wait
// forever, so a multi-permit request first takes a gate (a channel of one
// slot, so that waiting for it can be canceled too) and only one gathers at
// a time. While it gathers it holds slots nobody can use, and each of its
// sends queues behind the single-permit senders already parked, so
// multi-permit requests are served neither in strict arrival order nor
// quickly under load; they are never starved, because every send eventually
// reaches the head of a FIFO queue. A canceled multi-permit request gives
// back what it gathered.
//
// Two things the channel cannot tell apart need a word of their own each.
//
// Who holds what. The buffer counts the slots of completed acquisitions and
// those of a request still gathering, so its length cannot tell a caller who
// releases more than it holds from one who releases what it holds: checked
// against it, an over-release would take slots a gatherer is owed. So the
// permits of completed acquisitions are counted in an atomic word of their
// own. Release takes its permits off that count with a compare-and-swap that
// panics, changing nothing, if fewer are held, and only then receives; two
// Releases racing for the same permits cannot both pass, and every receive
// finds a value, because the count never exceeds what the buffer holds.
// Lock and Unlock keep the same count, so the two pairs mix freely.
//
// Who is waiting. A gatherer woken by one Release is not parked again until
// it runs its next send, and one handed the gate is not parked at all until
// it runs; meanwhile a Release frees a slot that no parked sender claims,
// and a bare non-blocking send would take it. So an atomic word counts the
// multi-permit Acquires in progress, waiting for the gate or gathering, and
// those ever started. TryAcquire(1) reads it before and after its send: if
// one was in progress at the first look, or started by the second, it gives
// the slot back and fails. An Acquire(1) is not held back that way: only
// TryAcquire promises not to barge, and single-permit requests keep their
// FIFO order among themselves.
//
// Cancellation that comes first wins. A send can complete in the same
// instant the context is done, and the select may pick either. But a slot
// taken by a send is not held until the Acquire counts it: until then no
// Release can take it (the count refuses), so the Acquire is granted its
// permits when it counts them, and that is where it decides. After its last
// send a waiter looks at its context: if it is done, the cancellation came
// before the grant, and the waiter gives the slots back and reports
// ctx.Err(); otherwise it counts them held, and the grant is final. That
// look costs only waiters, never the non-blocking send that serves the
// uncontended case.
//
// So chansem keeps every guarantee it declares (arrival order for single
// permits, no barging TryAcquire, no starvation) and the contract's exact
// over-release check, rather than dropping a guarantee to stay a bare
// channel: the over-release check is not optional, and once it needs a word
// of its own the barging fix costs only TryAcquire and multi-permit requests.
// The bookkeeping costs the single-permit fast path an atomic add in Acquire
// and a compare-and-swap in Release on top of the channel's own lock; see
// BenchmarkSemaphore in benchmarks, chansem against the raw channel.
//
// # Beyond the contract
//
// chansem offers Waiting and OnWait (sem.Observer) and NewAvailable; it
// offers neither Resize nor Close.
//
// No Resize: a channel's capacity is fixed when it is made. Growing would
// need a new channel, and moving the parked senders and held slots of the
// old one to it cannot be done atomically. A shrink-only Resize could park
// phantom values in the buffer, but it could never grow back past the
// capacity, and a semaphore that can only shrink is not what callers of
// sem.Resizer expect; so chansem leaves it to the weighted package.
//
// No Close: the only way to fail a sender parked on a channel is a second
// case in its select, a channel that Close would close, and every parked
// Acquire would pay for that case under contention, whether or not the
// semaphore is ever closed. A waiter whose context can never be done
// (context.Background) parks on a bare send instead, as a raw channel does;
// BenchmarkContended measures that path. Callers who need to shut a limit
// down choose weighted or condsem, or cancel their waiters' contexts.
//
// NewAvailable starts with the buffer and the held count filled with the
// permits that are not available. Only the slow paths observe: an Acquire
// that finds no free slot at once, or a multi-permit Acquire when its gate
// or one of its sends would block, counts itself in two atomic words for
// Waiting and, if a function is installed by OnWait, reads the clock.
//
// Choose chansem for single-permit limits where simplicity and FIFO order
// matter; choose weighted for requests of mixed weights.
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
// signalling semaphore: Acquire waits for another goroutine's Release(1). It
// panics if size is less than 1 or available is not between 0 and size.
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
		// always fits, so it needs only the context check and a send.
		if err := ctx.Err(); err != nil {
			return err
		}
		select {
		case s.slots <- struct{}{}:
			s.held.Add(1)
			return nil
		default:
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

// grant ends an Acquire(ctx, n) that waited and has taken its n slots. The
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
