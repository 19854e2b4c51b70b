package model

import (
	"context"
	"fmt"
	"sync"

	"github.com/semacat/sem"
)

// handoff is a small FIFO semaphore in the style of x/sync's Weighted:
// Release hands permits to the waiters at the head of the queue and wakes
// them, and a waiter whose context is done after its grant keeps the
// permits. Correct, it reaches the branch where a grant wins its race with
// a cancellation. With keepCanceled it hands permits to a waiter whose
// context is already done (x/sync before go.dev/issue/63615 was fixed): a
// cancellation that came first then loses.
type handoff struct {
	mu           sync.Mutex
	size, cur    int64
	queue        []*handoffWaiter
	keepCanceled bool
	lifo         bool // serve the newest waiter first
}

type handoffWaiter struct {
	ctx     context.Context
	n       int64
	granted chan struct{}
}

func newHandoff(keepCanceled bool) NewFunc {
	return func(size int64) sem.Semaphore { return &handoff{size: size, keepCanceled: keepCanceled} }
}

// newLIFO builds a handoff that serves the newest waiter first: it breaks
// UnitFIFO, and nothing else.
func newLIFO(size int64) sem.Semaphore { return &handoff{size: size, lifo: true} }

func (h *handoff) Acquire(ctx context.Context, n int64) error {
	if n > h.size {
		return fmt.Errorf("handoff: Acquire(%d) exceeds size %d: %w", n, h.size, sem.ErrExceedsSize)
	}
	if err := ctx.Err(); err != nil || n == 0 {
		return err
	}
	h.mu.Lock()
	if len(h.queue) == 0 && h.size-h.cur >= n {
		h.cur += n
		h.mu.Unlock()
		return nil
	}
	w := &handoffWaiter{ctx: ctx, n: n, granted: make(chan struct{})}
	h.queue = append(h.queue, w)
	h.mu.Unlock()
	select {
	case <-w.granted:
		return nil
	case <-ctx.Done():
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-w.granted:
		return nil // granted before the context was done: keep it
	default:
	}
	h.remove(w)
	h.grant()
	return ctx.Err()
}

// grant hands permits to the head of the queue while it fits, dropping
// waiters whose context is done: their cancellation came first.
func (h *handoff) grant() {
	for len(h.queue) > 0 {
		i := 0
		if h.lifo {
			i = len(h.queue) - 1
		}
		w := h.queue[i]
		if w.ctx.Err() != nil && !h.keepCanceled {
			h.remove(w) // it returns ctx.Err() when it runs
			continue
		}
		if h.size-h.cur < w.n {
			return
		}
		h.cur += w.n
		h.remove(w)
		close(w.granted)
	}
}

func (h *handoff) remove(w *handoffWaiter) {
	for i, q := range h.queue {
		if q == w {
			h.queue = append(h.queue[:i], h.queue[i+1:]...)
			return
		}
	}
}

func (h *handoff) TryAcquire(n int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.queue) > 0 && n > 0 || h.size-h.cur < n {
		return false
	}
	h.cur += n
	return true
}

func (h *handoff) Release(n int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n > h.cur {
		panic(fmt.Sprintf("handoff: Release(%d): released more than held (%d held)", n, h.cur))
	}
	h.cur -= n
	h.grant()
}
