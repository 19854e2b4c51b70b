package etcdsem

import (
	"context"
	"sync"
	"sync/atomic"
)

// testHook lets the package's tests watch a handle and steer it at chosen
// points. Production handles have none (a nil *testHook): every method
// below is then a nil check.
type testHook struct {
	// Tests must tell when every call has either returned or is parked on a
	// watch that has seen all of this handle's writes.
	busy      atomic.Int64 // calls under way and not parked on a watch
	lastWrite atomic.Int64 // revision of this handle's latest write to the queue
	mu        sync.Mutex
	waiting   map[*queueState]*parked

	// Faults and pauses, set before the handle is used.
	enqueueFault  func(key string) error // if it returns an error, the enqueue is not sent and fails with it
	beforeConfirm func(key string)       // a watch says the key fits; its re-read comes next
	lostReply     func() error           // if it returns an error, a write-back that succeeded fails with it
	beforeAdmit   func()                 // a key holds; the call is about to report the grant
	pauseRefresh  atomic.Bool            // keep-alives are not sent while set
}

// parked is what Settled needs of a waiting call.
type parked struct {
	ctx  context.Context
	seen atomic.Int64 // the revision the waiter's view of the queue is at
}

func (h *testHook) enter() {
	if h != nil {
		h.busy.Add(1)
	}
}

func (h *testHook) leave() {
	if h != nil {
		h.busy.Add(-1)
	}
}

// wrote records that the handle changed the queue at revision rev.
func (h *testHook) wrote(rev int64) {
	if h == nil {
		return
	}
	for {
		last := h.lastWrite.Load()
		if rev <= last || h.lastWrite.CompareAndSwap(last, rev) {
			return
		}
	}
}

// wait records that q's call waits with ctx; done ends the record.
func (h *testHook) wait(ctx context.Context, q *queueState) (done func()) {
	if h == nil {
		return func() {}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.waiting == nil {
		h.waiting = make(map[*queueState]*parked)
	}
	p := &parked{ctx: ctx}
	p.seen.Store(q.rev)
	h.waiting[q] = p
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.waiting, q)
	}
}

// saw records that q is now up to date with revision q.rev.
func (h *testHook) saw(q *queueState) {
	if h == nil {
		return
	}
	h.mu.Lock()
	p := h.waiting[q]
	h.mu.Unlock()
	if p != nil {
		p.seen.Store(q.rev)
	}
}

func (h *testHook) faultEnqueue(key string) error {
	if h == nil || h.enqueueFault == nil {
		return nil
	}
	return h.enqueueFault(key)
}

func (h *testHook) loseReply() error {
	if h == nil || h.lostReply == nil {
		return nil
	}
	return h.lostReply()
}

func (h *testHook) confirming(key string) {
	if h != nil && h.beforeConfirm != nil {
		h.beforeConfirm(key)
	}
}

func (h *testHook) admitting() {
	if h != nil && h.beforeAdmit != nil {
		h.beforeAdmit()
	}
}

func (h *testHook) refreshPaused() bool {
	return h != nil && h.pauseRefresh.Load()
}

// newTestHook, set only by the package's tests, gives every new handle a
// hook.
var newTestHook func() *testHook

func hookForNewHandle() *testHook {
	if newTestHook == nil {
		return nil
	}
	return newTestHook()
}
