package reftest

import (
	"context"
	"slices"
	"sync"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/check"
)

// Handoff names a way the handoff semaphore treats a waiter whose context
// is done around its grant.
type Handoff int

const (
	// HandoffKeeps is correct: Release skips a waiter whose context is
	// already done, and a waiter granted before its context was done keeps
	// the permits.
	HandoffKeeps Handoff = iota

	// HandoffGrantsCanceled hands permits to a waiter whose context is
	// already done, which keeps them (x/sync before go.dev/issue/63615 was
	// fixed): a cancellation that came first loses.
	HandoffGrantsCanceled

	// HandoffGivesBack hands permits to a waiter whose context is already
	// done and has the waiter give them back through Release when it sees
	// its context done. If another goroutine released the granted permits
	// in between (legally: they were held), that Release finds nothing held
	// and panics inside Acquire.
	HandoffGivesBack

	// HandoffLIFO serves the newest waiter first: it breaks UnitFIFO, and
	// nothing else.
	HandoffLIFO
)

// NewHandoff returns a constructor of a small FIFO semaphore in the style of
// golang.org/x/sync's Weighted: Release hands permits to the waiters at the
// head of the queue and wakes them. mode says how it treats a waiter whose
// context is done around its grant. Its panics name the package "ref".
func NewHandoff(mode Handoff) func(size int64) sem.Semaphore {
	return func(size int64) sem.Semaphore {
		pkg.PanicIfBadSize("New", size, check.Unbounded)
		return &handoff{size: size, mode: mode}
	}
}

type handoff struct {
	mu        sync.Mutex
	size, cur int64
	queue     []*handoffWaiter
	mode      Handoff
}

type handoffWaiter struct {
	ctx     context.Context
	n       int64
	granted chan struct{} // closed by the grant
}

func (h *handoff) Acquire(ctx context.Context, n int64) error {
	if err := pkg.ErrAcquire(ctx, n, h.size); err != nil || n == 0 {
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
		return h.keep(w)
	case <-ctx.Done():
	}
	h.mu.Lock()
	select {
	case <-w.granted: // granted before it took the lock
		h.mu.Unlock()
		return h.keep(w)
	default:
	}
	h.remove(w)
	h.grant()
	h.mu.Unlock()
	return ctx.Err()
}

// keep ends the Acquire of a granted waiter: it keeps the permits, or, in
// HandoffGivesBack, gives them back if its context is done by now.
func (h *handoff) keep(w *handoffWaiter) error {
	if h.mode == HandoffGivesBack && w.ctx.Err() != nil {
		h.Release(w.n)
		return w.ctx.Err()
	}
	return nil
}

// grant hands permits to the head of the queue while it fits, dropping
// waiters whose context is done unless the mode hands permits to them.
func (h *handoff) grant() {
	for len(h.queue) > 0 {
		w := h.queue[0]
		if h.mode == HandoffLIFO {
			w = h.queue[len(h.queue)-1]
		}
		if w.ctx.Err() != nil && (h.mode == HandoffKeeps || h.mode == HandoffLIFO) {
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
	h.queue = slices.DeleteFunc(h.queue, func(q *handoffWaiter) bool { return q == w })
}

func (h *handoff) TryAcquire(n int64) bool {
	pkg.PanicIfNegative("TryAcquire", n)
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.queue) > 0 && n > 0 || h.size-h.cur < n {
		return false
	}
	h.cur += n
	return true
}

func (h *handoff) Release(n int64) {
	pkg.PanicIfNegative("Release", n)
	h.mu.Lock()
	defer h.mu.Unlock()
	if n > h.cur {
		pkg.PanicOverRelease(n, h.cur)
	}
	h.cur -= n
	h.grant()
}
