package handoff

import (
	"context"
	"sync"

	"github.com/semacat/sem/internal/check"
)

// addLazy is addCtx with a design of contexts meant to cost less, and the
// argument checks semtest wants besides, so that it keeps weighted's whole
// contract but Close and Resize: a candidate for the least a FIFO
// semaphore of any weights with contexts does. It differs from addCtx in
// three ways.
//
//   - The context's Done is taken before the mutex, and nothing of a
//     context that can never be done (context.Background, the convoy's) is
//     called under it or kept in the node (such a waiter parks on its
//     channel alone, with no select, as in addCtx).
//   - The queue is fifo's, singly linked. A canceled waiter does not unlink
//     its node: it marks it abandoned under the mutex and returns; the node
//     is dropped, and put back in the pool, when it reaches the head. A
//     head is never abandoned once the mutex is released: a waiter that
//     abandons the head runs the grant loop, which drops it and serves the
//     waiters behind it that now fit, as the contract requires.
//   - A grant writes the node's next link and its live flag, not a back
//     link too.
//
// The trade: abandoned nodes behind a head that does not fit stay queued
// until it is served, so waiters that time out behind a large request
// hold memory until then, where addCtx and weighted free it at once.
// BenchmarkHandOff sets it beside fifo, addCtx and weighted
// (docs/results/weighted/handoff-ctxfloor.txt).
type addLazy struct {
	mu   sync.Mutex
	free int64
	size int64
	q    addQueue // singly linked: prev is not used
}

func newAddLazy(size int64) *addLazy {
	addPkg.PanicIfBadSize("New", size, check.Unbounded)
	return &addLazy{free: size, size: size}
}

func (s *addLazy) Acquire(ctx context.Context, n int64) error {
	addPkg.PanicIfNegative("Acquire", n)
	if n > s.size {
		return addPkg.ErrExceedsSize(n, s.size)
	}
	done := ctx.Done()
	s.mu.Lock()
	if done != nil {
		if err := ctx.Err(); err != nil {
			s.mu.Unlock()
			return err
		}
	}
	if s.q.head == nil && s.free >= n {
		s.free -= n
		s.mu.Unlock()
		return nil
	}
	w := s.push(ctx, done, n)
	s.mu.Unlock()
	if done == nil {
		<-w.wake
		err := w.err
		s.q.put(w)
		return err
	}
	select {
	case <-w.wake:
		return s.giveBack(w)
	case <-done:
		return s.cancel(w)
	}
}

// giveBack returns the outcome of w, whose wake-up was received, and puts
// w back in the pool without its context.
func (s *addLazy) giveBack(w *addNode) error {
	err := w.err
	w.ctx = nil
	s.q.put(w)
	return err
}

// push queues a live node for n at the tail, with s.mu held; it keeps the
// context only if it can be done.
func (s *addLazy) push(ctx context.Context, done <-chan struct{}, n int64) *addNode {
	w := s.q.pool
	if w == nil {
		w = s.q.returned.Swap(nil)
	}
	if w == nil {
		w = &addNode{wake: make(chan struct{}, 1)}
	} else {
		s.q.pool, w.link = w.link, nil
	}
	w.n, w.done, w.err, w.queued = n, done, nil, true
	if done != nil {
		w.ctx = ctx
	}
	if s.q.tail == nil {
		s.q.head = w
	} else {
		s.q.tail.next = w
	}
	s.q.tail = w
	return w
}

// cancel decides, under the mutex, a context done before the grant: an
// ungranted waiter abandons its node where it is, and serves the waiters
// behind it if it was the head; a granted or failed one returns the outcome.
func (s *addLazy) cancel(w *addNode) error {
	s.mu.Lock()
	if w.queued {
		err := w.ctx.Err()
		w.queued = false
		var woken *addNode
		if w == s.q.head {
			woken = s.grant()
		}
		s.mu.Unlock()
		wakeAll(woken)
		return err
	}
	s.mu.Unlock()
	<-w.wake
	return s.giveBack(w)
}

func (s *addLazy) TryAcquire(n int64) bool {
	addPkg.PanicIfNegative("TryAcquire", n)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.q.head != nil || s.free < n {
		return false
	}
	s.free -= n
	return true
}

func (s *addLazy) Release(n int64) {
	addPkg.PanicIfNegative("Release", n)
	s.mu.Lock()
	if held := s.size - s.free; n > held {
		s.mu.Unlock()
		addPkg.PanicOverRelease(n, held)
	}
	s.free += n
	woken := s.grant()
	s.mu.Unlock()
	wakeAll(woken)
}

// grant, with s.mu held, drops abandoned heads into the pool, and grants
// or fails live ones for as long as they fit or their context is done; it
// returns the list to wake.
func (s *addLazy) grant() (woken *addNode) {
	var last *addNode
	for w := s.q.head; w != nil; w = s.q.head {
		if w.queued {
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
		}
		s.q.head = w.next
		if s.q.head == nil {
			s.q.tail = nil
		}
		w.next = nil
		if !w.queued {
			w.ctx, w.link, s.q.pool = nil, s.q.pool, w
			continue
		}
		w.queued = false
		if last == nil {
			woken = w
		} else {
			last.link = w
		}
		last = w
	}
	return woken
}
