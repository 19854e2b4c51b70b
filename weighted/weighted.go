// Package weighted is a strictly FIFO weighted semaphore.
//
// DESIGN COMMENT: written once the measurements are in.
package weighted

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/semacat/sem/internal/check"
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

	// spare is a node whose waiter has returned, parked here without the
	// mutex and recycled by the next Acquire that queues.
	spare atomic.Pointer[waitq.Waiter]
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

func free(state uint64) int64 { return int64(state >> 1) }

// Acquire takes n permits, blocking until they are available or ctx is done.
// Requests are served in arrival order: a request that does not fit blocks
// every request behind it, however small.
//
// On success it returns nil and the caller holds n permits. If ctx is already
// done it returns ctx.Err() without acquiring, even when permits are free. If
// ctx is done while it waits, it returns ctx.Err() holding nothing, and the
// waiters behind it are served if they now fit; but if its permits were
// granted before it noticed ctx was done, it returns nil holding them (never
// an error holding permits, never nil without them). If n exceeds the size it
// returns at once an error wrapping sem.ErrExceedsSize. Acquire(ctx, 0)
// returns ctx.Err() without blocking. It panics if n < 0.
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
	select {
	case <-w.Woken():
		s.recycle(w)
		return nil
	case <-done:
		return s.cancel(ctx, w)
	}
}

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
		if w := s.spare.Load(); w != nil && s.spare.CompareAndSwap(w, nil) {
			s.q.Recycle(w)
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
	w := s.grant()
	s.mu.Unlock()
	wake(w)
}

// grant, called with s.mu held, hands permits to the waiters at the head of
// the queue for as long as the head fits, and clears the queued bit when the
// queue empties. It wakes every waiter it grants but the first, which it
// returns for the caller to wake once it has unlocked s.mu.
func (s *Semaphore) grant() (first *waitq.Waiter) {
	for {
		w := s.q.Front()
		if w == nil {
			s.state.And(^uint64(queued))
			return first
		}
		old := s.state.Load()
		if free(old) < w.N {
			return first
		}
		// While the bit is set only holders of s.mu change the state.
		s.state.Store(old - uint64(w.N)<<1)
		w.Granted = true
		s.q.Remove(w)
		if first == nil {
			first = w
		} else {
			w.Wake()
		}
	}
}

// wake wakes w, if not nil, which was granted its permits.
func wake(w *waitq.Waiter) {
	if w != nil {
		w.Wake()
	}
}

// recycle returns the node of a waiter that received its grant and its
// wake-up. It leaves the node in s.spare if that is empty, so that the
// waiter does not take the mutex a second time; otherwise it recycles it.
func (s *Semaphore) recycle(w *waitq.Waiter) {
	if s.spare.CompareAndSwap(nil, w) {
		return
	}
	s.mu.Lock()
	s.q.Recycle(w)
	s.mu.Unlock()
}

// cancel withdraws the waiter w whose ctx is done.
func (s *Semaphore) cancel(ctx context.Context, w *waitq.Waiter) error {
	s.mu.Lock()
	if w.Granted {
		// The grant came first: keep it. Its wake-up may still be on
		// the way; receive it so that it cannot reach the node's next
		// user.
		s.mu.Unlock()
		<-w.Woken()
		s.recycle(w)
		return nil
	}
	head := s.q.Front() == w
	s.q.Remove(w)
	s.q.Recycle(w)
	var first *waitq.Waiter
	if head || s.q.Len() == 0 {
		first = s.grant()
	}
	s.mu.Unlock()
	wake(first)
	return ctx.Err()
}
