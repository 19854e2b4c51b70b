// Package waitq is the wait queue shared by the semacat strategies that park
// goroutines in arrival order (weighted and spinsem), and the list of
// waiters of condsem's condition variable.
//
// A Queue is an intrusive doubly linked list of Waiters. Each Waiter carries
// the number of permits it wants and a wake channel with a buffer of one, so
// waking never blocks the waker and a wake sent before the waiter starts
// waiting is not lost.
//
// Waiters are recycled through a free list owned by the queue, so a
// semaphore in steady state allocates nothing per blocked Acquire (x/sync's
// Weighted allocates a list element and a channel each time). The free list
// belongs to one queue, never to a global sync.Pool: a channel made inside a
// testing/synctest bubble must not be used outside it, and a queue lives and
// dies with its semaphore. The free list grows to the largest number of
// goroutines that ever waited at once and is never trimmed.
//
// A Queue is not safe for concurrent use: the semaphore guards it with its own
// mutex. Only Wake and Woken may be used without that mutex.
package waitq

import "context"

// Waiter is a goroutine parked in a Queue.
type Waiter struct {
	// N is the number of permits the waiter wants.
	N int64
	// Ctx is the context of the waiting Acquire. The semaphore looks at
	// it at the moment it would grant the permits, so that a cancellation
	// that came first wins and a grant, once made, is final.
	Ctx context.Context
	// Done is free for the semaphore to keep Ctx.Done() in, read once
	// when the waiter queues, so that a later look at the context needs
	// no call of its methods.
	Done <-chan struct{}
	// Granted is set by the semaphore, under its mutex, when it hands the
	// waiter its permits directly; its meaning is the semaphore's.
	Granted bool
	// Since is free for the semaphore's use, such as the time the waiter
	// started waiting (spinsem's starvation mode).
	Since int64
	// Err is set by the semaphore, under its mutex, when it removes the
	// waiter from the queue with an error instead of permits (a Close, or
	// a Resize below its request).
	Err error

	wake       chan struct{}
	prev, next *Waiter
	queued     bool
}

// Wake signals the waiter without blocking. A second Wake before the waiter
// receives the first is absorbed.
func (w *Waiter) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Next returns the waiter queued behind w, or nil if w is the last or is not
// queued.
func (w *Waiter) Next() *Waiter {
	if !w.queued {
		return nil // next links the free list
	}
	return w.next
}

// Woken returns the channel on which the waiter receives its wake-up.
func (w *Waiter) Woken() <-chan struct{} { return w.wake }

// Queue is a FIFO of waiters. The zero value is an empty queue.
type Queue struct {
	head, tail *Waiter
	len        int
	free       *Waiter // recycled waiters, linked through next
}

// Len returns the number of queued waiters.
func (q *Queue) Len() int { return q.len }

// Front returns the first waiter, or nil when the queue is empty.
func (q *Queue) Front() *Waiter { return q.head }

// PushBack queues a waiter for n permits, whose Acquire has the context
// ctx, at the tail and returns it.
func (q *Queue) PushBack(ctx context.Context, n int64) *Waiter {
	w := q.get(n)
	w.Ctx = ctx
	w.prev = q.tail
	if q.tail != nil {
		q.tail.next = w
	} else {
		q.head = w
	}
	q.tail = w
	q.len++
	return w
}

// Remove takes w out of the queue. It does nothing if w is not queued.
func (q *Queue) Remove(w *Waiter) {
	if !w.queued {
		return
	}
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
}

// Recycle returns w, which must not be queued, to the queue's free list. Any
// wake-up still pending on it is discarded. The caller must not use w again.
func (q *Queue) Recycle(w *Waiter) {
	if w.queued {
		panic("waitq: Recycle of a queued waiter")
	}
	select {
	case <-w.wake:
	default:
	}
	w.N, w.Ctx, w.Done, w.Granted, w.Since, w.Err = 0, nil, nil, false, 0, nil
	w.next = q.free
	q.free = w
}

// get takes a waiter from the free list, or makes one.
func (q *Queue) get(n int64) *Waiter {
	w := q.free
	if w != nil {
		q.free = w.next
		w.next = nil
	} else {
		w = &Waiter{wake: make(chan struct{}, 1)}
	}
	w.N, w.queued = n, true
	return w
}
