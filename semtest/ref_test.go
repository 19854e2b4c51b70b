package semtest_test

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/semacat/sem"
	"github.com/semacat/sem/semtest"
)

// ref is a small, obviously correct semaphore that the suite's own tests run
// against, with switches that break it on purpose: each bug must be reported
// by the subtest that names the promise it breaks.
type ref struct {
	mu    sync.Mutex
	cond  *sync.Cond
	size  int64
	cur   int64
	queue []*int64 // waiting requests, in arrival order
	fifo  bool     // serve only the head of the queue, and never let TryAcquire pass it
	bug   string
	never chan struct{}
}

// The bugs ref can be built with.
const (
	bugNone          = ""
	bugOverAdmit     = "overadmit"     // admits one permit more than is free
	bugLostWakeup    = "lostwakeup"    // Release wakes one waiter however many permits it frees
	bugIgnoreCancel  = "ignorecancel"  // a waiting Acquire never looks at its context again
	bugDoneContext   = "donectx"       // a done context still acquires free permits
	bugStrand        = "strand"        // a canceled waiter stays at the head of the queue
	bugNoPanic       = "nopanic"       // over-release silently drives the count negative
	bugExceedsBlocks = "exceedsblocks" // n > size waits instead of failing
	bugLeak          = "leak"          // every Acquire that waits leaves a goroutine behind
)

func newRef(fifo bool, bug string) semtest.NewFunc {
	return func(size int64) sem.Semaphore {
		if size < 1 {
			panic(fmt.Sprintf("ref: New(%d): size must be at least 1", size))
		}
		r := &ref{size: size, fifo: fifo, bug: bug, never: make(chan struct{})}
		r.cond = sync.NewCond(&r.mu)
		return r
	}
}

func (r *ref) Acquire(ctx context.Context, n int64) error {
	if n < 0 {
		panic(fmt.Sprintf("ref: Acquire(%d): negative weight", n))
	}
	if n > r.size && r.bug != bugExceedsBlocks {
		return fmt.Errorf("ref: Acquire(%d) exceeds size %d: %w", n, r.size, sem.ErrExceedsSize)
	}
	if err := ctx.Err(); (err != nil && r.bug != bugDoneContext) || n == 0 {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	me := &n
	r.queue = append(r.queue, me)
	if r.bug != bugIgnoreCancel {
		stop := context.AfterFunc(ctx, func() {
			r.mu.Lock()
			r.cond.Broadcast()
			r.mu.Unlock()
		})
		defer stop()
	}
	if r.bug == bugLeak && !r.fits(me) {
		go func() { <-r.never }()
	}
	for !r.fits(me) {
		if ctx.Err() != nil && r.bug != bugIgnoreCancel {
			if r.bug != bugStrand {
				r.remove(me)
			}
			r.cond.Broadcast()
			return ctx.Err()
		}
		r.cond.Wait()
	}
	r.remove(me)
	r.cur += n
	if r.bug != bugLostWakeup {
		r.cond.Broadcast() // the next in line may fit too
	}
	return nil
}

func (r *ref) free() int64 {
	if r.bug == bugOverAdmit {
		return r.size - r.cur + 1
	}
	return r.size - r.cur
}

func (r *ref) fits(me *int64) bool {
	return *me <= r.free() && (!r.fifo || r.queue[0] == me)
}

func (r *ref) remove(me *int64) {
	r.queue = slices.DeleteFunc(r.queue, func(q *int64) bool { return q == me })
}

func (r *ref) TryAcquire(n int64) bool {
	if n < 0 {
		panic(fmt.Sprintf("ref: TryAcquire(%d): negative weight", n))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n == 0 {
		return true
	}
	if n > r.free() || (r.fifo && len(r.queue) > 0) {
		return false
	}
	r.cur += n
	return true
}

func (r *ref) Release(n int64) {
	if n < 0 {
		panic(fmt.Sprintf("ref: Release(%d): negative weight", n))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n > r.cur && r.bug != bugNoPanic {
		panic(fmt.Sprintf("ref: Release(%d): released more than held (%d held)", n, r.cur))
	}
	r.cur -= n
	if r.bug == bugLostWakeup {
		r.cond.Signal()
	} else {
		r.cond.Broadcast()
	}
}
