package handoff

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem"

	"github.com/semacat/sem/internal/acquiretest"
)

// fifo is the least that a semaphore with weighted's guarantees does in a
// hand-off: requests of any weight served in arrival order, none passing
// a queued one, no allocation in steady state. Each of its steps is one
// that such a semaphore cannot skip:
//
//   - a lock of its own around the queue, taken once by every call: with
//     weights the queue cannot be a channel's, and a request must be
//     queued, and a Release must choose whom to grant, atomically with the
//     look at the free permits;
//   - a channel per waiter, received from to park and sent to to wake:
//     the runtime parks a goroutine outside itself only on a channel (or
//     a sync.Cond, which cannot be canceled, or a sync.Mutex, which lets
//     running goroutines barge), and a channel shared by all waiters
//     would wake whoever parked on it first, not the head of the queue,
//     since queueing under the lock and parking on the channel are two
//     steps;
//   - the wake-up sent after the unlock, so that the scheduler's work is
//     not in the lock's hold time;
//   - one compare-and-swap by the woken waiter to give its node back,
//     since a node may not be reused before its wake-up is received.
//
// It ignores contexts and has no fast path: in the convoy every call
// takes the lock anyway, and weighted looks at its context and state word
// besides. BenchmarkHandOff sets weighted beside it.
type fifo struct {
	mu         sync.Mutex
	free       int64
	head, tail *fifoWaiter
	pool       *fifoWaiter // guarded by mu
	returned   atomic.Pointer[fifoWaiter]
}

type fifoWaiter struct {
	n    int64
	wake chan struct{}
	next *fifoWaiter
}

func (f *fifo) Acquire(_ context.Context, n int64) error {
	f.mu.Lock()
	if f.head == nil && f.free >= n {
		f.free -= n
		f.mu.Unlock()
		return nil
	}
	w := f.get()
	w.n = n
	if f.tail == nil {
		f.head = w
	} else {
		f.tail.next = w
	}
	f.tail = w
	f.mu.Unlock()
	<-w.wake
	f.put(w)
	return nil
}

func (f *fifo) TryAcquire(n int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.head != nil || f.free < n {
		return false
	}
	f.free -= n
	return true
}

func (f *fifo) Release(n int64) {
	f.mu.Lock()
	f.free += n
	woken := f.grant()
	f.mu.Unlock()
	wakeFifo(woken)
}

// grant takes from the queue, in order, the waiters the free permits
// serve, and returns them linked through next, to be woken after the
// unlock. f.mu must be held.
func (f *fifo) grant() (woken *fifoWaiter) {
	var last *fifoWaiter
	for w := f.head; w != nil && w.n <= f.free; w = f.head {
		f.free -= w.n
		f.head = w.next
		if f.head == nil {
			f.tail = nil
		}
		w.next = nil
		if last == nil {
			woken = w
		} else {
			last.next = w
		}
		last = w
	}
	return woken
}

// wakeFifo wakes the waiters of a list that grant returned.
func wakeFifo(woken *fifoWaiter) {
	for w := woken; w != nil; {
		next := w.next
		w.wake <- struct{}{}
		w = next
	}
}

func (f *fifo) get() *fifoWaiter {
	if f.pool == nil {
		f.pool = f.returned.Swap(nil)
	}
	w := f.pool
	if w == nil {
		return &fifoWaiter{wake: make(chan struct{}, 1)}
	}
	f.pool, w.next = w.next, nil
	return w
}

func (f *fifo) put(w *fifoWaiter) {
	for {
		top := f.returned.Load()
		w.next = top
		if f.returned.CompareAndSwap(top, w) {
			return
		}
	}
}

// The fifo contender, and the additive ones built on it, keep the
// guarantees they stand for in BenchmarkHandOff: a head that does not fit
// blocks a smaller request behind it, whether the smaller one comes while
// permits are free or is queued when they come back, and a TryAcquire does
// not pass either.
func TestFifoContenderKeepsOrder(t *testing.T) {
	for _, c := range fifoContenders {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { checkKeepsOrder(t, c.new(3)) })
		})
	}
}

// fifoContenders are fifo and the additive contenders, each with 3 permits;
// add1lazy, which keeps the contract, comes last (see TestAdditiveConformance).
var fifoContenders = []contender{
	{"fifo", func(size int64) sem.Semaphore { return &fifo{free: size} }},
	{"add1ctx", func(size int64) sem.Semaphore { return &addCtx{free: size} }},
	{"add2state", newAddState},
	{"add3checks", func(size int64) sem.Semaphore { return newAddChecks(size) }},
	{"add4hook", func(size int64) sem.Semaphore { return newAddHook(size) }},
	{"add5pool", func(size int64) sem.Semaphore { return newAddPool(size) }},
	{"add1lazy", func(size int64) sem.Semaphore { return newAddLazy(size) }},
}

func checkKeepsOrder(t *testing.T, f sem.Semaphore) {
	require.True(t, f.TryAcquire(3))
	head := acquiretest.Go(f, 3)
	synctest.Wait()
	f.Release(1)
	small := acquiretest.Go(f, 1)
	synctest.Wait()
	assert.False(t, small.Returned(), "a request of 1 took a free permit past the queued request of 3")
	assert.False(t, head.Returned(), "a Release granted the request of 3 with 1 permit free")
	f.Release(1)
	synctest.Wait()
	assert.False(t, small.Returned(), "a Release granted a request of 1 past the queued request of 3")
	assert.False(t, f.TryAcquire(1), "TryAcquire passed the queue")
	f.Release(1)
	synctest.Wait()
	require.True(t, head.Served())
	assert.False(t, small.Returned())
	f.Release(3)
	synctest.Wait()
	require.True(t, small.Served())
	f.Release(1)
	assert.True(t, f.TryAcquire(3), "the permits did not all come back")
	head.Cancel()
	small.Cancel()
}
