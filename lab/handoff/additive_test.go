package handoff

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/semacat/sem"
)

// The additive contenders of BenchmarkHandOff start from fifo and add
// weighted's features one at a time, each to the one before: addCtx the
// context (a select on it and on the waiter's channel, a look at the head's
// context before each grant, and the cancel-versus-grant race, which needs
// a doubly linked queue to withdraw a waiter in constant time); addState
// the atomic state word, its fast paths and its slow bit (additive2_test.go
// goes on with the checks of Close and Resize, the observation hook with
// the Waiting counts, and weighted's way of recycling nodes). Set beside
// fifo and weighted in the same run, each step's cpu-ns/op against the one
// before is what that feature costs per hand-off
// (docs/results/weighted/handoff-additive.txt).

// addNode is a queued Acquire of the contenders from addCtx on.
type addNode struct {
	n          int64
	ctx        context.Context
	done       <-chan struct{} // ctx.Done(), nil if ctx can never be done
	err        error
	wake       chan struct{}
	prev, next *addNode
	queued     bool
	link       *addNode // in the list to wake, and in the pools
}

// addQueue is fifo's queue, doubly linked so that a canceled waiter leaves
// it in constant time, with fifo's pool of nodes.
type addQueue struct {
	head, tail *addNode
	pool       *addNode // guarded by the contender's mutex
	returned   atomic.Pointer[addNode]
}

func (q *addQueue) pushBack(ctx context.Context, n int64) *addNode {
	w := q.pool
	if w == nil {
		w = q.returned.Swap(nil)
	}
	if w == nil {
		w = &addNode{wake: make(chan struct{}, 1)}
	} else {
		q.pool, w.link = w.link, nil
	}
	w.n, w.ctx, w.done, w.err, w.queued = n, ctx, ctx.Done(), nil, true
	w.prev = q.tail
	if q.tail == nil {
		q.head = w
	} else {
		q.tail.next = w
	}
	q.tail = w
	return w
}

func (q *addQueue) remove(w *addNode) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		q.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		q.tail = w.prev
	}
	w.prev, w.next, w.queued = nil, nil, false
}

// put gives back w once its wake-up, if any, is received.
func (q *addQueue) put(w *addNode) {
	for {
		top := q.returned.Load()
		w.link = top
		if q.returned.CompareAndSwap(top, w) {
			return
		}
	}
}

// wakeAll wakes the listed waiters, after the unlock.
func wakeAll(w *addNode) {
	for w != nil {
		next := w.link
		w.wake <- struct{}{}
		w = next
	}
}

// addWait parks the queued w until its grant or its context; cancel
// decides, under the mutex, a context done first.
func addWait(w *addNode, cancel func(*addNode) error) error {
	if w.done == nil {
		<-w.wake
		return w.err
	}
	select {
	case <-w.wake:
		return w.err
	case <-w.done:
		return cancel(w)
	}
}

// addCtx is fifo with contexts: an Acquire fails with a done context, a
// waiter selects on its context and its channel, a Release fails a head
// whose context is done instead of granting it, and a canceled waiter
// leaves the queue unless it was granted meanwhile.
type addCtx struct {
	mu   sync.Mutex
	free int64
	q    addQueue
}

func (s *addCtx) Acquire(ctx context.Context, n int64) error {
	s.mu.Lock()
	if err := ctx.Err(); err != nil {
		s.mu.Unlock()
		return err
	}
	if s.q.head == nil && s.free >= n {
		s.free -= n
		s.mu.Unlock()
		return nil
	}
	w := s.q.pushBack(ctx, n)
	s.mu.Unlock()
	err := addWait(w, s.cancel)
	s.q.put(w)
	return err
}

func (s *addCtx) cancel(w *addNode) error {
	s.mu.Lock()
	if w.queued {
		s.q.remove(w)
		woken := s.grant()
		s.mu.Unlock()
		wakeAll(woken)
		return w.ctx.Err()
	}
	s.mu.Unlock()
	<-w.wake
	return w.err
}

func (s *addCtx) TryAcquire(n int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.q.head != nil || s.free < n {
		return false
	}
	s.free -= n
	return true
}

func (s *addCtx) Release(n int64) {
	s.mu.Lock()
	s.free += n
	woken := s.grant()
	s.mu.Unlock()
	wakeAll(woken)
}

// grant, with s.mu held, grants or fails the head for as long as it fits
// or its context is done, and returns the list to wake.
func (s *addCtx) grant() (woken *addNode) {
	var last *addNode
	for w := s.q.head; w != nil; w = s.q.head {
		if w.done != nil {
			select {
			case <-w.done:
				w.err = w.ctx.Err()
			default:
			}
		}
		if w.err == nil {
			if w.n > s.free {
				break
			}
			s.free -= w.n
		}
		s.q.remove(w)
		if last == nil {
			woken = w
		} else {
			last.link = w
		}
		last = w
	}
	return woken
}

// addSlow is the low bit of the state word of addState and what follows.
const addSlow = 1

// addState is addCtx with weighted's state word: free<<1 | slow. With the
// slow bit clear, Acquire and Release take and give permits with one
// compare-and-swap and no mutex; a waiter sets the bit with a swap from
// the word it found too small, and a Release under the mutex clears it
// when the queue empties, storing the word once.
type addState struct {
	state atomic.Uint64
	mu    sync.Mutex
	q     addQueue
}

func newAddState(size int64) sem.Semaphore {
	s := &addState{}
	s.state.Store(uint64(size) << 1)
	return s
}

func (s *addState) Acquire(ctx context.Context, n int64) error {
	for {
		old := s.state.Load()
		if old&addSlow != 0 || int64(old>>1) < n {
			return s.acquireSlow(ctx, n)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.state.CompareAndSwap(old, old-uint64(n)<<1) {
			return nil
		}
	}
}

func (s *addState) acquireSlow(ctx context.Context, n int64) error {
	s.mu.Lock()
	for {
		old := s.state.Load()
		if err := ctx.Err(); err != nil {
			s.mu.Unlock()
			return err
		}
		if old&addSlow == 0 {
			if int64(old>>1) >= n {
				if s.state.CompareAndSwap(old, old-uint64(n)<<1) {
					s.mu.Unlock()
					return nil
				}
				continue
			}
			if !s.state.CompareAndSwap(old, old|addSlow) {
				continue
			}
		}
		break
	}
	w := s.q.pushBack(ctx, n)
	s.mu.Unlock()
	err := addWait(w, s.cancel)
	s.q.put(w)
	return err
}

func (s *addState) cancel(w *addNode) error {
	s.mu.Lock()
	if w.queued {
		s.q.remove(w)
		st, woken := s.grant(s.freeze())
		s.state.Store(st)
		s.mu.Unlock()
		wakeAll(woken)
		return w.ctx.Err()
	}
	s.mu.Unlock()
	<-w.wake
	return w.err
}

func (s *addState) TryAcquire(n int64) bool {
	for {
		old := s.state.Load()
		if old&addSlow != 0 {
			s.mu.Lock()
			st := s.freeze()
			ok := s.q.head == nil && int64(st>>1) >= n
			if ok {
				st -= uint64(n) << 1
			}
			st, woken := s.grant(st) // fails heads whose context is done
			s.state.Store(st)
			s.mu.Unlock()
			wakeAll(woken)
			return ok
		}
		if int64(old>>1) < n {
			return false
		}
		if s.state.CompareAndSwap(old, old-uint64(n)<<1) {
			return true
		}
	}
}

func (s *addState) Release(n int64) {
	for {
		old := s.state.Load()
		if old&addSlow != 0 {
			s.releaseSlow(n)
			return
		}
		if s.state.CompareAndSwap(old, old+uint64(n)<<1) {
			return
		}
	}
}

func (s *addState) releaseSlow(n int64) {
	s.mu.Lock()
	st, woken := s.grant(s.freeze() + uint64(n)<<1)
	s.state.Store(st)
	s.mu.Unlock()
	wakeAll(woken)
}

// freeze, with s.mu held, sets the slow bit and returns the word.
func (s *addState) freeze() uint64 {
	st := s.state.Load()
	if st&addSlow == 0 {
		st = s.state.Or(addSlow) | addSlow
	}
	return st
}

// grant is addCtx's on the frozen word st, which it returns less the
// permits granted, with the slow bit cleared if the queue empties.
func (s *addState) grant(st uint64) (uint64, *addNode) {
	var woken, last *addNode
	for w := s.q.head; ; w = s.q.head {
		if w == nil {
			return st &^ addSlow, woken
		}
		if w.done != nil {
			select {
			case <-w.done:
				w.err = w.ctx.Err()
			default:
			}
		}
		if w.err == nil {
			if w.n > int64(st>>1) {
				return st, woken
			}
			st -= uint64(w.n) << 1
		}
		s.q.remove(w)
		if last == nil {
			woken = w
		} else {
			last.link = w
		}
		last = w
	}
}
