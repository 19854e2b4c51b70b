package weighted_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/acquiretest"
	"github.com/semacat/sem/weighted"
)

// FuzzWeighted runs random programs of Acquire, TryAcquire, Release,
// cancel, Resize and Close against a semaphore and against model, a few lines of obviously
// correct bookkeeping, and checks after every step that the same Acquires
// have been served, canceled or left waiting, and that the same number of
// permits is free. Since the sets are compared after every step, a grant out
// of arrival order is caught at the step that makes it.
//
// The first byte picks the size (1 to 6); each following pair of bytes is one
// step: an operation and its argument.
func FuzzWeighted(f *testing.F) {
	const (
		acquire = iota
		try
		release
		cancel
		resize
		closeSem
		ops
	)
	f.Add([]byte{3, acquire, 2, acquire, 2, acquire, 1, release, 0, release, 0})
	f.Add([]byte{2, acquire, 2, acquire, 2, acquire, 1, try, 0, cancel, 1, try, 1, release, 0})
	f.Add([]byte{4, try, 3, acquire, 3, acquire, 1, cancel, 1, release, 0, try, 1})
	f.Add([]byte{1, acquire, 1, acquire, 1, acquire, 1, cancel, 2, release, 0, cancel, 1, release, 0})
	f.Add([]byte{5, acquire, 6, acquire, 0, try, 7, acquire, 5, acquire, 4, acquire, 1, release, 0, release, 0})
	f.Add([]byte{6, acquire, 4, acquire, 4, acquire, 2, acquire, 1, release, 0, cancel, 1, release, 0, release, 0})
	f.Add([]byte{4, acquire, 3, acquire, 2, acquire, 4, acquire, 1, resize, 1, release, 0, resize, 5, release, 0})
	f.Add([]byte{3, acquire, 3, resize, 0, acquire, 1, try, 1, release, 0, resize, 3, release, 0})
	f.Add([]byte{2, acquire, 2, acquire, 1, acquire, 0, closeSem, 0, try, 0, acquire, 1, release, 0, closeSem, 0})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) == 0 {
			return
		}
		size := int64(prog[0]%6) + 1
		prog = prog[1:]
		if len(prog) > 2*64 {
			prog = prog[:2*64]
		}
		synctest.Test(t, func(t *testing.T) {
			h := newHarness(t, size)
			defer h.finish()
			for i := 0; i+1 < len(prog); i += 2 {
				op, arg := prog[i]%ops, int64(prog[i+1])
				var step string
				switch op {
				case acquire:
					step = h.acquire(arg % (h.m.size + 2))
				case try:
					step = h.tryAcquire(arg % (h.m.size + 2))
				case release:
					step = h.release(arg)
				case cancel:
					step = h.cancel(arg)
				case resize:
					step = h.resize(arg%6 + 1)
				case closeSem:
					step = h.close()
				}
				synctest.Wait()
				h.check(i/2, step)
				if t.Failed() {
					return
				}
			}
		})
	})
}

// The fates of an Acquire.
const (
	waiting = iota
	served
	canceled
	exceeded
	closed
)

// model is the reference semaphore: a free count, negative while a shrink
// leaves more held than the size, and a FIFO of requests.
type model struct {
	size, free int64
	closed     bool
	queue      []int // indexes of waiting Acquires, in arrival order
	fate       []int // per Acquire
	weight     []int64
}

// grant serves waiting Acquires from the head while the head fits.
func (m *model) grant() {
	for len(m.queue) > 0 && m.weight[m.queue[0]] <= m.free {
		i := m.queue[0]
		m.queue = m.queue[1:]
		m.free -= m.weight[i]
		m.fate[i] = served
	}
}

// harness drives the real semaphore and the model side by side.
type harness struct {
	t       *testing.T
	s       *weighted.Semaphore
	m       model
	acqs    []*acquiretest.Call
	holding []int64 // permits held, one entry per successful request
	took    []bool  // whether the served Acquire's permits were added to holding
}

func newHarness(t *testing.T, size int64) *harness {
	return &harness{t: t, s: weighted.New(size), m: model{size: size, free: size}}
}

func (h *harness) acquire(n int64) string {
	i := len(h.acqs)
	h.acqs = append(h.acqs, acquiretest.Go(h.s, n))
	h.took = append(h.took, false)
	h.m.weight = append(h.m.weight, n)
	switch {
	case n > h.m.size:
		h.m.fate = append(h.m.fate, exceeded)
	case h.m.closed:
		h.m.fate = append(h.m.fate, closed)
	case n == 0 || (len(h.m.queue) == 0 && h.m.free >= n):
		h.m.fate = append(h.m.fate, served)
		h.m.free -= n
	default:
		h.m.fate = append(h.m.fate, waiting)
		h.m.queue = append(h.m.queue, i)
	}
	return fmt.Sprintf("Acquire(%d) #%d", n, i)
}

func (h *harness) tryAcquire(n int64) string {
	want := !h.m.closed && (n == 0 || (n <= h.m.size && len(h.m.queue) == 0 && h.m.free >= n))
	got := h.s.TryAcquire(n)
	if got != want {
		h.t.Errorf("TryAcquire(%d) = %v; want %v (free %d, %d queued)", n, got, want, h.m.free, len(h.m.queue))
	}
	if got && n > 0 {
		h.holding = append(h.holding, n)
	}
	if want {
		h.m.free -= n
	}
	return fmt.Sprintf("TryAcquire(%d)", n)
}

// release gives back the permits of one request, if any are held.
func (h *harness) release(arg int64) string {
	h.collect()
	if len(h.holding) == 0 {
		return "no Release (nothing held)"
	}
	k := int(arg) % len(h.holding)
	n := h.holding[k]
	h.holding = slices.Delete(h.holding, k, k+1)
	h.s.Release(n)
	h.m.free += n
	h.m.grant()
	return fmt.Sprintf("Release(%d)", n)
}

// cancel cancels the context of one Acquire, waiting or not.
func (h *harness) cancel(arg int64) string {
	if len(h.acqs) == 0 {
		return "no cancel (no Acquire)"
	}
	i := int(arg) % len(h.acqs)
	h.acqs[i].Cancel()
	if h.m.fate[i] == waiting {
		h.m.fate[i] = canceled
		k := slices.Index(h.m.queue, i)
		h.m.queue = slices.Delete(h.m.queue, k, k+1)
		if k == 0 {
			h.m.grant()
		}
	}
	return fmt.Sprintf("cancel #%d", i)
}

// resize sets the size: the model keeps what is held, and fails the waiting
// requests larger than the new size.
func (h *harness) resize(size int64) string {
	h.s.Resize(size)
	held := h.m.size - h.m.free
	h.m.size, h.m.free = size, size-held
	h.m.queue = slices.DeleteFunc(h.m.queue, func(i int) bool {
		if h.m.weight[i] > size {
			h.m.fate[i] = exceeded
			return true
		}
		return false
	})
	h.m.grant()
	return fmt.Sprintf("Resize(%d)", size)
}

// close closes the semaphore: every waiting request fails.
func (h *harness) close() string {
	if err := h.s.Close(); err != nil {
		h.t.Errorf("Close() = %v", err)
	}
	h.m.closed = true
	for _, i := range h.m.queue {
		h.m.fate[i] = closed
	}
	h.m.queue = nil
	return "Close()"
}

// collect moves the permits of served Acquires into holding.
func (h *harness) collect() {
	for i, a := range h.acqs {
		if !h.took[i] && a.Returned() && a.Err == nil {
			h.took[i] = true
			if a.N > 0 {
				h.holding = append(h.holding, a.N)
			}
		}
	}
}

// check compares every Acquire's fate and the free count with the model.
func (h *harness) check(step int, what string) {
	h.t.Helper()
	for i, a := range h.acqs {
		got := waiting
		if a.Returned() {
			switch {
			case a.Err == nil:
				got = served
			case errors.Is(a.Err, context.Canceled):
				got = canceled
			case errors.Is(a.Err, sem.ErrExceedsSize):
				got = exceeded
			case errors.Is(a.Err, sem.ErrClosed):
				got = closed
			default:
				h.t.Errorf("step %d (%s): Acquire #%d returned %v", step, what, i, a.Err)
			}
		}
		if want := h.m.fate[i]; got != want {
			names := []string{"waiting", "served", "canceled", "exceeded", "closed"}
			h.t.Errorf("step %d (%s): Acquire(%d) #%d is %s; want %s (model queue %v, free %d)",
				step, what, h.m.weight[i], i, names[got], names[want], h.m.queue, h.m.free)
		}
	}
	if got := h.s.Available(); got != h.m.free {
		h.t.Errorf("step %d (%s): Available() = %d; want %d", step, what, got, h.m.free)
	}
}

// finish cancels every Acquire, gives back every permit, and checks that the
// semaphore is whole again.
func (h *harness) finish() {
	for _, a := range h.acqs {
		a.Cancel()
	}
	synctest.Wait()
	h.collect()
	for _, n := range h.holding {
		h.s.Release(n)
	}
	h.holding = nil
	if got := h.s.Available(); got != h.m.size && !h.t.Failed() {
		// h.m.size is the size after every Resize.
		h.t.Errorf("after every Acquire was canceled and every permit given back, Available() = %d; want %d", got, h.m.size)
	}
}
