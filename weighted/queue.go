package weighted

import (
	"context"
	"sync"
	"unsafe"

	"github.com/semacat/sem/internal/observe"
)

// waiter is one queued Acquire. Its fields are written under the
// semaphore's mutex while it is queued; once it is granted or failed it
// belongs to its goroutine, which reads them after its wake-up.
type waiter struct {
	n    int64
	ctx  context.Context
	done <-chan struct{} // ctx.Done(), nil if ctx can never be done
	err  error           // what it was failed with, nil if granted

	wake       chan struct{} // one token, sent when granted or failed
	prev, next *waiter       // the queue's links
	queued     bool
	// link chains a waiter in the list of those to wake after the mutex
	// is unlocked.
	link *waiter
}

// queue is a FIFO list of waiters with a pool of free ones, so that in
// steady state a blocked Acquire allocates nothing.
//
// The free nodes are in a sync.Pool, which keeps them per processor: a
// woken waiter gives its node back, without the semaphore's mutex, to its
// own processor's cache, and the holder of the mutex takes one from its
// own, so that recycling a node writes nothing another processor reads
// (lab/handoff's BenchmarkHandOff: a stack shared by all, changed by
// compare-and-swap, cost every hand-off a cache line moved between
// processors). A garbage collection moves idle nodes to the pool's victim
// cache and the next drops them; a semaphore in use takes them back before
// that, so a blocked Acquire still allocates nothing in steady state
// (TestBlockedAcquireAllocatesNothing).
type queue struct {
	head, tail *waiter
	len        int
	wanted     observe.Total // permits asked for by the queued waiters
	_          [8]byte       // the line's end: nodes starts the next

	nodes sync.Pool // free *waiter, with their channels
	_     [cacheLine - unsafe.Sizeof(sync.Pool{})]byte
}

// pushBack queues a waiter for n permits with ctx, whose Done is done, and
// returns it. It takes the node from the pool, or allocates one when the
// pool has none. (Taking the node here rather than in a function of its
// own keeps a call out of every Acquire that waits: lab/handoff's
// BenchmarkHandOff.)
func (q *queue) pushBack(ctx context.Context, done <-chan struct{}, n int64) *waiter {
	w, _ := q.nodes.Get().(*waiter)
	if w == nil {
		w = &waiter{wake: make(chan struct{}, 1)}
	}
	w.link = nil
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
	q.nodes.Put(w)
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
