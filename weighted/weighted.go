// Package weighted is a weighted semaphore that serves requests strictly in
// arrival order: the design of golang.org/x/sync/semaphore.Weighted, made to
// take no mutex when nobody waits and to allocate nothing when someone does.
//
// # Design
//
// One atomic word holds the state: the number of free permits, shifted left
// by one, and in the low bit a flag that says the wait queue is not empty.
// Everything else (the queue of waiters, and every change of the flag) is
// guarded by a mutex.
//
// Fast paths. While the flag is clear nobody waits, so an Acquire or
// TryAcquire whose request fits takes its permits with one compare-and-swap
// of the whole word, and a Release gives them back the same way. Because the
// swap covers the flag too, it fails if a waiter queued in the meantime, and
// the caller falls back to the mutex: no fast path ever passes a waiter.
// Uncontended, an Acquire+Release pair costs two atomic read-modify-writes
// where x/sync's costs four (a Lock and an Unlock each); the rest of the
// pair is the interface calls and the contract's context and argument
// checks, which both pay. BenchmarkSemaphore/uncontended in benchmarks
// compares the two.
//
// Slow path. An Acquire that does not fit takes the mutex and looks again.
// If the queue is still empty and the request now fits, it takes the permits.
// Otherwise it sets the flag with a compare-and-swap from the very state it
// found too small, so that a fast-path Release landing between the check and
// the flag makes the swap fail and the check run again; without that, the
// waiter could go to sleep on permits that had just come back, with nobody
// left to wake it. It then queues a node at the tail, unlocks, and parks on
// the node's channel. A Release that finds the flag set takes the mutex, adds
// its permits, and grants them from the head of the queue for as long as the
// head fits: it subtracts the head's permits, marks it granted, removes it
// and wakes it. It never wakes a waiter that cannot proceed, and a woken
// waiter never has to look at the state again: its permits are already its
// own. The flag is cleared, under the mutex, when the queue empties, and the
// fast paths open again.
//
// Allocation. Queue nodes and their wake channels come from internal/waitq,
// which keeps a free list per semaphore: in steady state a blocked Acquire
// allocates nothing, where x/sync's allocates a list element and a channel
// each time (see allocs/op in the contended scenarios of BenchmarkSemaphore).
//
// Cancellation. A cancellation that comes before the grant wins, as in
// x/sync since go.dev/issue/63615. A waiter whose context is done takes the
// mutex. If it was not granted, it leaves the queue, and the waiters behind
// it that now fit are granted. If it was, the grant and the cancellation
// crossed, and nothing tells which came first: it hands the permits on the
// same way. Either way it returns ctx.Err() holding nothing. A waiter woken
// by its grant looks at ctx.Done() once more before it returns, and gives
// the permits back if the context is done by then, since its select may
// pick the wake-up when both are ready. Only waiters pay for that look.
//
// # Fairness, and what it costs
//
// Admission is strictly first come, first served, whatever the weights: a
// request at the head that does not fit blocks every request behind it,
// however small, so a large request is never starved; and TryAcquire fails
// while anyone is queued. An Acquire is in line from the moment it is
// queued; two callers that both find the fast path open race for it, exactly
// as two callers race for x/sync's mutex.
//
// The price is the convoy. Once more goroutines want permits than there are,
// the queue never empties: each Release hands its permits to a parked waiter
// and the releasing goroutine, calling Acquire again, must queue and park
// behind the others. Every Acquire then costs a park and a wake-up, as a
// blocked send on a buffered channel does; sync.Mutex goes faster only by
// letting a running goroutine barge past parked ones, which this semaphore
// promises never to do. The contended scenarios of BenchmarkSemaphore
// compare it with x/sync's Weighted and with a raw channel, which parks and
// wakes the same way: what is left between this package and the channel is
// its mutex, which a channel does not need.
//
// Tried and not kept, for want of a gain beyond the benchmarks' noise in
// paired runs of BenchmarkSemaphore: spinning on TryLock before blocking on
// the mutex (a mutex profile showed more time blocked, not less); waking
// the first grantee after unlocking; and handing nodes back through an
// atomic slot instead of taking the mutex to recycle them.
package weighted

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/semacat/sem/internal/check"
	"github.com/semacat/sem/internal/grant"
	"github.com/semacat/sem/internal/waitq"
)

const pkg = "weighted"

// queued is the low bit of the state word: set while the wait queue is not
// empty. The permits that are free are the rest of the word.
const queued = 1

// Semaphore is a weighted semaphore that serves requests in arrival order.
// It implements sem.Semaphore. The zero value is not usable; call New.
type Semaphore struct {
	state atomic.Uint64 // free<<1 | queued
	size  int64

	mu sync.Mutex  // guards q, and changes of the queued bit
	q  waitq.Queue // waiting Acquires, in arrival order
}

// New returns a semaphore with size permits, all free. It panics if size is
// less than 1.
func New(size int64) *Semaphore {
	check.Size(pkg, size)
	s := &Semaphore{size: size}
	s.state.Store(uint64(size) << 1)
	return s
}

// Size returns the total number of permits.
func (s *Semaphore) Size() int64 { return s.size }

// Available returns the number of permits free at this instant. It is a
// snapshot for monitoring and teaching, stale as soon as it returns.
func (s *Semaphore) Available() int64 { return free(s.state.Load()) }

// free returns the number of free permits in a state word. The shift is
// unsigned, so a size up to math.MaxInt64 fits.
func free(state uint64) int64 { return int64(state >> 1) }

// Acquire takes n permits, blocking until they are available or ctx is done.
// Requests are served in arrival order: a request that does not fit blocks
// every request behind it, however small.
//
// On success it returns nil and the caller holds n permits. If ctx is already
// done it returns ctx.Err() without acquiring, even when permits are free. If
// ctx is done while it waits, it returns ctx.Err() holding nothing, and the
// waiters behind it are served if they now fit; that holds also when its
// permits were granted in the same instant: it hands them on. If n exceeds
// the size it returns at once an error wrapping sem.ErrExceedsSize.
// Acquire(ctx, 0) returns ctx.Err() without blocking. It panics if n < 0.
func (s *Semaphore) Acquire(ctx context.Context, n int64) error {
	check.Weight(pkg, "Acquire", n)
	if n > s.size {
		return check.ExceedsSize(pkg, n, s.size)
	}
	if err := ctx.Err(); err != nil || n == 0 {
		return err
	}
	if s.tryAcquire(n) {
		return nil
	}
	return s.acquireSlow(ctx, n)
}

// TryAcquire takes n permits only if it can do so at once, and reports
// whether it did. It takes all n or none, and fails while any Acquire waits,
// even when n permits are free. TryAcquire(0) reports true. It panics if
// n < 0.
func (s *Semaphore) TryAcquire(n int64) bool {
	check.Weight(pkg, "TryAcquire", n)
	return n == 0 || (n <= s.size && s.tryAcquire(n))
}

// tryAcquire takes n permits if nobody is queued and they are free.
func (s *Semaphore) tryAcquire(n int64) bool {
	for {
		old := s.state.Load()
		if old&queued != 0 || free(old) < n {
			return false
		}
		if s.state.CompareAndSwap(old, old-uint64(n)<<1) {
			return true
		}
	}
}

// Release returns n permits and hands them to the waiters at the head of the
// queue, in order, for as long as the head's request fits. It panics if n is
// negative or more than the permits held; the check happens before any
// permit is returned.
func (s *Semaphore) Release(n int64) {
	check.Weight(pkg, "Release", n)
	for {
		old := s.state.Load()
		if old&queued != 0 {
			s.releaseSlow(n)
			return
		}
		s.checkRelease(old, n)
		if s.state.CompareAndSwap(old, old+uint64(n)<<1) {
			return
		}
	}
}

// checkRelease panics if n permits are more than are held in state old.
func (s *Semaphore) checkRelease(old uint64, n int64) {
	if held := s.size - free(old); n > held {
		check.OverRelease(pkg, n, held)
	}
}

// acquireSlow queues an Acquire(n) that could not be served at once and waits
// for its grant or for ctx.
func (s *Semaphore) acquireSlow(ctx context.Context, n int64) error {
	s.mu.Lock()
	w := s.enqueue(n)
	s.mu.Unlock()
	if w == nil {
		return nil
	}
	done := ctx.Done()
	if done == nil {
		<-w.Woken()
		s.recycle(w)
		return nil
	}
	if testHookPark != nil {
		testHookPark()
	}
	select {
	case <-w.Woken():
		s.recycle(w)
		return grant.Keep(ctx, s, n)
	case <-done:
		return s.cancel(ctx, w)
	}
}

// testHookPark, when set by a test, runs just before a queued waiter blocks,
// the moment at which its grant and its context may both become ready.
var testHookPark func()

// testHookQueue, when set by a test, runs in enqueue between the check that a
// request does not fit and the setting of the queued bit: the window in which
// a fast-path Release can race a new waiter.
var testHookQueue func()

// enqueue, called with s.mu held, takes n permits if nobody is queued and
// they are free, and returns nil; otherwise it queues a waiter for them and
// sets the queued bit, which sends every Release and Acquire to the mutex.
func (s *Semaphore) enqueue(n int64) *waitq.Waiter {
	for {
		old := s.state.Load()
		if old&queued == 0 {
			if free(old) >= n {
				if s.state.CompareAndSwap(old, old-uint64(n)<<1) {
					return nil
				}
				continue
			}
			if testHookQueue != nil {
				testHookQueue()
			}
			// Set the bit only if no permit came back since the load:
			// otherwise a fast-path Release could have freed what we
			// need just before we start to wait, and nobody would wake us.
			if !s.state.CompareAndSwap(old, old|queued) {
				continue
			}
		}
		return s.q.PushBack(n)
	}
}

// releaseSlow returns n permits while waiters are queued.
func (s *Semaphore) releaseSlow(n int64) {
	s.mu.Lock()
	for {
		old := s.state.Load()
		if held := s.size - free(old); n > held {
			s.mu.Unlock()
			check.OverRelease(pkg, n, held)
		}
		if s.state.CompareAndSwap(old, old+uint64(n)<<1) {
			break
		}
	}
	s.grant()
	s.mu.Unlock()
}

// grant, called with s.mu held, hands permits to the waiters at the head of
// the queue for as long as the head fits, wakes them, and clears the queued
// bit when the queue empties.
func (s *Semaphore) grant() {
	for {
		w := s.q.Front()
		if w == nil {
			s.state.And(^uint64(queued))
			return
		}
		old := s.state.Load()
		if free(old) < w.N {
			return
		}
		// While the bit is set only holders of s.mu change the state.
		s.state.Store(old - uint64(w.N)<<1)
		w.Granted = true
		s.q.Remove(w)
		w.Wake()
	}
}

// recycle returns the node of a waiter that received its grant.
func (s *Semaphore) recycle(w *waitq.Waiter) {
	s.mu.Lock()
	s.q.Recycle(w)
	s.mu.Unlock()
}

// cancel withdraws the waiter w whose ctx is done. If w was granted in the
// meantime, it hands the permits on: the cancellation may have come first.
// Recycle discards the wake-up of a grant.
func (s *Semaphore) cancel(ctx context.Context, w *waitq.Waiter) error {
	s.mu.Lock()
	if w.Granted {
		s.state.Add(uint64(w.N) << 1)
	} else {
		s.q.Remove(w)
	}
	s.q.Recycle(w)
	s.grant()
	s.mu.Unlock()
	return ctx.Err()
}
