package weighted

import (
	"context"
	"sync/atomic"

	"github.com/semacat/sem/internal/observe"
)

// waiter is one queued Acquire. Its fields other than link are written
// under the semaphore's mutex while it is queued; once it is granted or
// failed it belongs to its goroutine, which reads them after its wake-up.
type waiter struct {
	n    int64
	ctx  context.Context
	done <-chan struct{} // ctx.Done(), nil if ctx can never be done
	err  error           // what it was failed with, nil if granted

	wake       chan struct{} // one token, sent when granted or failed
	prev, next *waiter       // the queue's links
	queued     bool
	// link chains a waiter in the list of those to wake after the mutex
	// is unlocked, and in the stacks of free waiters.
	link *waiter
}

// queue is a FIFO list of waiters with a pool of free ones, so that in
// steady state a blocked Acquire allocates nothing.
//
// A woken waiter gives its node back without the semaphore's mutex: it
// pushes it on returned, a stack changed only by compare-and-swap. Only a
// holder of the mutex takes from it, all at once with a swap, into free,
// which only holders of the mutex touch. With a single taker and a take
// that empties the stack, no node can leave and come back between a
// pusher's load and its swap in a way that matters: a push only sets the
// new node's link to the top it loaded.
type queue struct {
	head, tail *waiter
	len        int
	wanted     observe.Total // permits asked for by the queued waiters
	free       *waiter       // guarded by the semaphore's mutex
	returned   atomic.Pointer[waiter]
	_          [cacheLine - 8]byte // returned's line is its own
}

// pushBack queues a waiter for n permits with ctx, whose Done is done, and
// returns it. It takes
// the node from free, which it refills first, if empty, with the nodes
// returned since it last ran out, or allocates one when none was. (Taking
// the node here rather than in a function of its own keeps a call out of
// every Acquire that waits: BenchmarkHandOff.)
func (q *queue) pushBack(ctx context.Context, done <-chan struct{}, n int64) *waiter {
	if q.free == nil {
		q.free = q.returned.Swap(nil)
	}
	w := q.free
	if w == nil {
		w = &waiter{wake: make(chan struct{}, 1)}
	} else {
		q.free, w.link = w.link, nil
	}
	w.n, w.ctx, w.done, w.queued = n, ctx, done, true
	w.prev = q.tail
	if q.tail != nil {
		q.tail.next = w
	} else {
		q.head = w
	}
	q.tail = w
	q.len++
	q.wanted.Add(n)
	return w
}

// remove takes the queued waiter w out of the queue.
func (q *queue) remove(w *waiter) {
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
	q.len--
	q.wanted.Sub(w.n)
}

// put gives back w, which is out of the queue and whose wake-up, if it was
// granted or failed, has been received. It needs no lock.
func (q *queue) put(w *waiter) {
	w.n, w.ctx, w.done, w.err = 0, nil, nil, nil
	for {
		top := q.returned.Load()
		w.link = top
		if q.returned.CompareAndSwap(top, w) {
			return
		}
	}
}

// wakeList lists the waiters granted or failed under the semaphore's
// mutex, in that order, linked through link, for unlock to wake once it
// has unlocked the mutex.
type wakeList struct{ head, tail *waiter }

// push appends w to the list.
func (l *wakeList) push(w *waiter) {
	if l.head == nil {
		l.head = w
	} else {
		l.tail.link = w
	}
	l.tail = w
}
