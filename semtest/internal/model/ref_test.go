package model

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/semacat/sem"
)

// ref is a small, obviously correct semaphore (a mutex, a condition
// variable and a queue of waiting requests) with switches that break it on
// purpose: each bug must be found by the model.
type ref struct {
	mu    sync.Mutex
	cond  *sync.Cond
	size  int64
	cur   int64
	queue []*int64 // waiting requests, in arrival order
	fifo  bool     // serve only the head of the queue, and never let TryAcquire pass it
	bug   string
}

// The bugs ref can be built with.
const (
	bugNone         = ""
	bugOverAdmit    = "overadmit"    // admits one permit more than is free
	bugLostWakeup   = "lostwakeup"   // Release wakes one waiter however many permits it frees
	bugIgnoreCancel = "ignorecancel" // a waiting Acquire never looks at its context again
	bugDoneContext  = "donectx"      // a done context still acquires free permits
	bugNoPanic      = "nopanic"      // over-release silently drives the count negative
	bugBarging      = "barging"      // TryAcquire takes free permits past the queue
	bugAvailable    = "available"    // Available counts the permits of waiters as free
	bugShyTry       = "shytry"       // TryAcquire never takes the last free permit
	bugStrand       = "strand"       // a canceled waiter takes one permit away with it
)

func newRef(fifo bool, bug string) NewFunc {
	return func(size int64) sem.Semaphore {
		r := &ref{size: size, fifo: fifo, bug: bug}
		r.cond = sync.NewCond(&r.mu)
		return r
	}
}

func (r *ref) Acquire(ctx context.Context, n int64) error {
	if n > r.size {
		return fmt.Errorf("ref: Acquire(%d) exceeds size %d: %w", n, r.size, sem.ErrExceedsSize)
	}
	if err := ctx.Err(); (err != nil && r.bug != bugDoneContext) || n == 0 {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bug == bugDoneContext && ctx.Err() != nil && n <= r.free() {
		r.cur += n
		return nil
	}
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
	for {
		// The context first: a cancellation that came before the grant wins.
		if ctx.Err() != nil && r.bug != bugIgnoreCancel {
			if r.bug == bugStrand {
				r.cur++
			}
			r.remove(me)
			r.cond.Broadcast()
			return ctx.Err()
		}
		if r.fits(me) {
			break
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
	r.mu.Lock()
	defer r.mu.Unlock()
	if n == 0 {
		return true
	}
	if n > r.free() || (r.fifo && len(r.queue) > 0 && r.bug != bugBarging) || (r.bug == bugShyTry && n == r.free()) {
		return false
	}
	r.cur += n
	return true
}

func (r *ref) Release(n int64) {
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

// Available returns the free permits, as the strategies' snapshot does.
func (r *ref) Available() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bug == bugAvailable {
		return r.size - r.cur + int64(len(r.queue))
	}
	return r.size - r.cur
}
