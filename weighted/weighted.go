// Package weighted is a weighted semaphore that serves requests strictly in
// arrival order: the design of golang.org/x/sync/semaphore.Weighted, made to
// take no mutex when nobody waits and to allocate nothing when someone does.
//
// It keeps the whole sem contract. Beyond it: requests of any weight are
// served first come, first served; a large request is never starved, since
// a request at the head that does not fit blocks the smaller ones behind
// it; and TryAcquire fails while anyone waits, so nobody barges. It
// implements sem.Resizer, sem.Closer and sem.Observer, and NewAvailable
// starts it with fewer free permits than its size.
//
// Choose weighted when requests carry different weights and must be served
// in arrival order. The price of that order is that under contention every
// Acquire parks and is woken, where spinsem lets running goroutines barge.
//
//	s := weighted.New(10) // 10 units of memory, say
//	if err := s.Acquire(ctx, 3); err != nil {
//		return err // ctx is done: nothing was acquired
//	}
//	defer s.Release(3)
//
// How it works, and why, is told in a comment in design.go and, with diagrams and measurements, in the course's
// page at https://github.com/semacat/sem/blob/main/docs/weighted.md.
package weighted

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/semacat/sem/internal/check"
	"github.com/semacat/sem/internal/observe"
)

const pkg check.Pkg = "weighted"

// cacheLine is the size of a cache line on the processors Go runs on most,
// amd64 and arm64; on a larger line Semaphore's lines share some.
const cacheLine = 64

// Semaphore is a weighted semaphore that serves requests in arrival order.
// It implements sem.Semaphore, sem.Resizer, sem.Closer and sem.Observer. The
// zero value is not usable; call New or NewAvailable.
type Semaphore struct {
	// Its fields fill three cache lines, each written by other hands, so
	// that none is taken from a processor for a write that does not
	// concern it (lab/handoff's BenchmarkHandOff; TestLayout). Its size
	// is a multiple of the line, which makes the allocator place it on a
	// line's start.
	//
	// The first line, the hand-off's: what a holder of mu writes.
	mu    sync.Mutex // guards q, count, owed, closed, and changes of the slow bit
	count int64      // the free permits while the slow bit is set (see publish)
	// The queue's fields the mutex guards, then, on the second line,
	// the pool of free nodes, whose caches are per processor.
	q queue // waiting Acquires, in arrival order

	// The third line, read by every call and written only when the slow
	// bit changes, by a Resize or by a Close: in the convoy every call
	// loads state, and its copy stays in every processor's cache.
	state atomic.Uint64 // free<<1 | slow
	size  atomic.Int64  // stored only under mu, with the slow bit set

	owed   int64 // permits held beyond the size after a shrink
	closed bool
	onWait observe.Hook
	test   *testHooks // nil outside tests
	_      [lastPad]byte
}

// lastPad fills the third line of a Semaphore.
const lastPad = cacheLine - 48

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
	s := &Semaphore{}
	s.size.Store(size)
	s.state.Store(uint64(available) << 1)
	return s
}

// Size returns the total number of permits.
func (s *Semaphore) Size() int64 { return s.size.Load() }

// Available returns the number of permits free at this instant, negative
// while a shrink has left more permits held than the size. It is a snapshot
// for monitoring and teaching, stale as soon as it returns.
func (s *Semaphore) Available() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.freeNow() - s.owed
}

// Acquire takes n permits, blocking until they are available or ctx is done.
// Requests are served in arrival order: a request that does not fit blocks
// every request behind it, however small.
//
// On success it returns nil and the caller holds n permits. If ctx is already
// done it returns ctx.Err() without acquiring, even when permits are free. If
// ctx is done while it waits, before its permits are granted, it returns
// ctx.Err() holding nothing, and the waiters behind it are served if they
// now fit; once granted, it returns nil even if ctx is done by then. One
// window is looser: an Acquire that takes free permits without waiting
// looks at ctx and then swaps the state word, and if ctx is canceled in
// between while other goroutines take and give back permits so that the
// word is as it was, it returns nil holding n permits after the cancel
// returned; the count of free permits stays right. A cancellation and a
// Resize or Close that come together are served in the order the
// semaphore meets them: a waiter whose context is done but who has not yet
// withdrawn may get the Resize's or the Close's error, and a waiter that
// withdraws before a Resize lets those behind it that fit the old size be
// granted first. If n exceeds the size it returns at once an error
// wrapping sem.ErrExceedsSize, even if ctx is done or the semaphore is
// closed. Once the semaphore is closed it returns an error wrapping
// sem.ErrClosed.
// Acquire(ctx, 0) returns ctx.Err() without blocking, or that error once
// closed. It panics if n < 0.
func (s *Semaphore) Acquire(ctx context.Context, n int64) error {
	// The argument checks and the zero-weight answer below are copied in
	// condsem's acquire (condsem/core.go) on purpose: one helper shared by
	// both measured slower on the uncontended path of each in paired runs
	// of BenchmarkUncontended (the commit that reverted check.ErrWeight).
	pkg.PanicIfNegative("Acquire", n)
	if size := s.size.Load(); n > size {
		return pkg.ErrExceedsSize(n, size)
	}
	if n == 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		return s.zeroWeight()
	}
	for {
		old := s.state.Load()
		if old&slow != 0 || free(old) < n {
			return s.acquireSlow(ctx, n)
		}
		// The context after the load, see takeFrom.
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.takeFrom(old, n) {
			return nil
		}
	}
}

// TryAcquire takes n permits only if it can do so at once, and reports
// whether it did. It takes all n or none, and fails while any Acquire waits,
// even when n permits are free, and once the semaphore is closed; it fails
// for no other reason when n permits are free, even during a Resize.
// TryAcquire(0) reports true until the semaphore is closed. It panics if
// n < 0.
func (s *Semaphore) TryAcquire(n int64) bool {
	pkg.PanicIfNegative("TryAcquire", n)
	if n == 0 {
		return s.zeroWeight() == nil
	}
	return s.tryAcquire(n)
}

// zeroWeight returns the error of Acquire(ctx, 0) when ctx is not done: nil,
// or the closed error once the semaphore is closed.
func (s *Semaphore) zeroWeight() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return pkg.ErrClosed(0)
	}
	return nil
}

// tryAcquire takes n permits if the slow bit is clear and they are free. No
// more than the size is ever free, so a request above the size fails here.
// The bit is also set for the moment a Resize or a Release under the mutex
// works on the word, when nobody need wait: trySlow decides then.
func (s *Semaphore) tryAcquire(n int64) bool {
	for {
		old := s.state.Load()
		if old&slow != 0 {
			if t := s.test; t != nil && t.trySlow != nil {
				t.trySlow()
			}
			return s.trySlow(n)
		}
		if free(old) < n {
			return false
		}
		if s.takeFrom(old, n) {
			return true
		}
	}
}

// trySlow decides under the mutex a TryAcquire(n) that found the slow bit
// set: it fails if anyone waits or the semaphore is closed, and otherwise
// takes n permits if they are free. Only the uncontended fast path stays
// free of the mutex; a TryAcquire that meets waiters pays for it.
func (s *Semaphore) trySlow(n int64) bool {
	var l wakeList
	s.mu.Lock()
	defer s.unlock(&l)
	if s.closed || s.q.len > 0 {
		return false
	}
	st := s.freeze()
	ok := free(st) >= n
	if ok {
		st -= uint64(n) << 1
	}
	s.publish(s.grant(st, &l))
	return ok
}

// Release returns n permits and hands them to the waiters at the head of the
// queue, in order, for as long as the head's request fits. It panics if n is
// negative or more than the permits held; the check happens before any
// permit is returned.
func (s *Semaphore) Release(n int64) {
	pkg.PanicIfNegative("Release", n)
	for {
		old := s.state.Load()
		// More than seem held: the mutex decides, since a Resize may
		// have changed the size since the load.
		if old&slow != 0 || n > s.size.Load()-free(old) {
			s.releaseSlow(n)
			return
		}
		if s.state.CompareAndSwap(old, old+uint64(n)<<1) {
			return
		}
	}
}

// acquireSlow serves under the mutex an Acquire(n) that could not be
// served at once: it returns the error of an Acquire that must fail (ctx is
// done, the semaphore is closed, or n exceeds a size shrunk since the caller
// looked), or takes n permits if nobody is queued and they are free, or
// else queues a waiter for them, setting the slow bit, which sends every
// Release and Acquire to the mutex; it then waits for the grant or for ctx,
// and reports the wait to OnWait's function. The fast paths may change the
// state while the bit is clear, so it looks at ctx after each load, as
// Acquire does (see takeFrom). It is one function, and unlocks with the
// mutex's Unlock, since nobody is listed to wake here: every call on the
// path of a waiter costs in the convoy (lab/handoff's BenchmarkHandOff).
func (s *Semaphore) acquireSlow(ctx context.Context, n int64) error {
	done := ctx.Done()
	s.mu.Lock()
	for {
		old := s.state.Load()
		// A context whose Done is nil can never be done, so that in the
		// convoy nothing is called here (lab/handoff's BenchmarkHandOff).
		if done != nil || s.closed || n > s.size.Load() {
			if err := s.failure(ctx, n); err != nil {
				s.mu.Unlock()
				return err
			}
		}
		if old&slow == 0 {
			if free(old) >= n {
				if s.takeFrom(old, n) {
					s.mu.Unlock()
					return nil
				}
				continue
			}
			if t := s.test; t != nil && t.queue != nil {
				t.queue()
			}
			// Set the bit only if no permit came back since the load:
			// otherwise a fast-path Release could have freed what we
			// need just before we start to wait, and nobody would wake us.
			if !s.state.CompareAndSwap(old, old|slow) {
				continue
			}
			s.count = free(old)
		}
		break
	}
	w := s.q.pushBack(ctx, done, n)
	s.mu.Unlock()
	o := s.onWait.Start(n)
	if w.done == nil { // a context that can never be done
		<-w.wake
		return o.End(s.retire(w))
	}
	return o.End(s.park(ctx, w))
}

// park blocks the queued waiter w, whose context can be done, until its
// grant, its failure, or ctx.
func (s *Semaphore) park(ctx context.Context, w *waiter) error {
	done := w.done
	if t := s.test; t != nil && t.park != nil {
		t.park()
	}
	select {
	case <-w.wake:
		return s.retire(w)
	case <-done:
		return s.cancel(ctx, w)
	}
}

// failure, called with s.mu held, returns the error an Acquire(ctx, n) must
// return now, or nil.
func (s *Semaphore) failure(ctx context.Context, n int64) error {
	return pkg.ErrNow(ctx, n, s.size.Load(), s.closed)
}

// releaseSlow returns n permits under the mutex: while the slow bit is set,
// or when the fast path found n more than seem held.
//
// Once the slow bit is set only holders of the mutex change the state, so
// it works on a copy of the state and publishes it once, when the grants
// are made: a Release in the convoy reads the word, and adds no other
// read-modify-write to the mutex's.
func (s *Semaphore) releaseSlow(n int64) {
	var l wakeList
	s.mu.Lock()
	st := s.freeze()
	if held := s.held(st); n > held {
		s.publish(s.grant(st, &l))
		s.unlock(&l)
		pkg.PanicOverRelease(n, held)
	}
	paid := min(n, s.owed) // returned permits pay a shrink's debt first
	if paid > 0 {          // written only then, see Semaphore
		s.owed -= paid
	}
	s.publish(s.grant(st+uint64(n-paid)<<1, &l))
	s.unlock(&l)
}

// grant, called with s.mu held, hands permits to the waiters at the head
// of the queue for as long as the head fits, lists them on l, and
// returns the state to publish: st, the frozen state with the slow bit
// set, less the permits granted, and with the bit cleared when the queue
// empties, unless the semaphore is closed or permits are owed. A head
// whose context is done is failed with its error instead, whether or not
// it fits: the cancellation came before this grant, so it wins, and a
// grant once made is final.
func (s *Semaphore) grant(st uint64, l *wakeList) uint64 {
	if t := s.test; t != nil && t.frozen != nil {
		t.frozen()
	}
	for {
		w := s.q.head
		if w == nil {
			if !s.closed && s.owed == 0 {
				st &^= slow
			}
			return st
		}
		// A receive that cannot block, from the channel the waiter
		// kept when it queued, tells whether its context is done as Err
		// would, calling no method of the context; Err is called only to
		// fail the head. A context that can never be done has no channel.
		if w.done != nil {
			select {
			case <-w.done:
				s.fail(w, w.ctx.Err(), l)
				continue
			default:
			}
		}
		if free(st) < w.n {
			return st
		}
		st -= uint64(w.n) << 1
		s.q.remove(w)
		l.push(w)
	}
}

// fail, called with s.mu held, takes w out of the queue to return err, and
// lists it on l to be woken.
func (s *Semaphore) fail(w *waiter, err error, l *wakeList) {
	w.err = err
	s.q.remove(w)
	l.push(w)
}

// unlock unlocks s.mu, then wakes the waiters listed on l, granted or
// failed while it was held. The list is the caller's, on its stack, not
// the semaphore's, so that listing them writes nothing that the other
// processor reads. Waking them outside the mutex keeps the hand-off to
// the scheduler, which may wake an idle processor, out of the mutex's hold
// time, where every other caller would wait for it. Nothing is lost by the
// delay: the grant is made and final under the mutex, and a waiter whose
// context is done meanwhile waits for its token before it gives its node
// back (see cancel).
func (s *Semaphore) unlock(l *wakeList) {
	w := l.head
	s.mu.Unlock()
	if t := s.test; t != nil && t.wake != nil && w != nil {
		t.wake()
	}
	for w != nil {
		// The waiter may reuse its node once woken: read link first.
		next := w.link
		w.wake <- struct{}{}
		w = next
	}
}

// retire returns the error a woken waiter was failed with, nil if it was
// granted its permits, and gives its node back, without the mutex.
func (s *Semaphore) retire(w *waiter) error {
	err := w.err
	s.q.put(w)
	return err
}

// cancel withdraws the waiter w whose ctx is done and returns ctx.Err(),
// unless w was granted or failed in the meantime: the grant or the failure
// (by Resize or Close) was made under the mutex before this cancellation
// took it, so it is final, and cancel returns what retire would have, nil
// or the failure's error. A waiter granted or failed already has a wake-up
// coming, sent after the unlock that follows the grant: cancel receives it
// before it gives the node back, so that no token outlives its use.
func (s *Semaphore) cancel(ctx context.Context, w *waiter) error {
	var l wakeList
	s.mu.Lock()
	if w.queued {
		s.q.remove(w)
		s.publish(s.grant(s.freeze(), &l))
		s.unlock(&l)
		s.q.put(w)
		return ctx.Err()
	}
	s.mu.Unlock()
	<-w.wake
	return s.retire(w)
}
