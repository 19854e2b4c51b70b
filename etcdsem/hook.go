package etcdsem

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// testHook lets the package's tests watch a handle and steer it at chosen
// points. Production handles have none (a nil *testHook): every method
// below is then a nil check.
type testHook struct {
	// Tests must tell when every call has either returned or is parked on a
	// watch that has seen all of this handle's writes that concern it.
	busy      atomic.Int64 // calls under way and not parked on a watch
	lastWrite atomic.Int64 // revision of this handle's latest write to the queue
	lastSize  atomic.Int64 // revision of this handle's latest write to the size
	mu        sync.Mutex
	wroteTo   map[string]int64 // key -> revision of this handle's latest write to it
	waiting   map[*queueState]*parked

	// Faults and pauses, set before the handle is used.
	enqueueFault  func(key string) error // if it returns an error, the enqueue is not sent and fails with it
	beforeConfirm func(key string)       // a watch says the key fits; its re-read comes next
	lostReply     func() error           // if it returns an error, a write-back that succeeded fails with it
	beforeAdmit   func()                 // a key holds; the call is about to report the grant
	pauseRefresh  atomic.Bool            // keep-alives are not sent while set
	wallAhead     atomic.Int64           // how far the wall clock is moved ahead of the monotonic one, as a suspend does

	beforeSizeEvent atomic.Pointer[func()] // the size watch has an event to pass on (set while the handle runs)

	watches atomic.Int64 // watches the handle's waiters started
}

// parked is what Settled needs of a waiting call.
type parked struct {
	ctx      context.Context
	seen     int64  // the revision the waiter's view of the queue is at
	sizeSeen int64  // the revision of the size record its view counts with
	pred     string // the one key it watches, if it does not watch the queue
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

// wrote records that the handle wrote key at revision rev.
func (h *testHook) wrote(key string, rev int64) {
	if h == nil {
		return
	}
	for {
		last := h.lastWrite.Load()
		if rev <= last || h.lastWrite.CompareAndSwap(last, rev) {
			break
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.wroteTo == nil {
		h.wroteTo = make(map[string]int64)
	}
	h.wroteTo[key] = max(h.wroteTo[key], rev)
}

// resized records that the handle wrote the size at revision rev.
func (h *testHook) resized(rev int64) {
	if h != nil {
		h.lastSize.Store(rev)
	}
}

// wroteOp records that the handle wrote at revision rev with op, a put,
// a delete, or a transaction whose first op is one.
func (h *testHook) wroteOp(op clientv3.Op, rev int64) {
	if h == nil {
		return
	}
	if op.IsTxn() {
		_, then, _ := op.Txn()
		op = then[0]
	}
	h.wrote(string(op.KeyBytes()), rev)
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
	h.waiting[q] = &parked{ctx: ctx, seen: q.rev, sizeSeen: q.rec.rev, pred: q.pred}
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
	defer h.mu.Unlock()
	if p := h.waiting[q]; p != nil {
		p.seen, p.sizeSeen, p.pred = q.rev, q.rec.rev, q.pred
	}
}

// lagging reports whether p has yet to see a write of the handle that
// concerns it: a write to the size, any write to the queue if it watches
// the queue, else a write to the key it watches. Call it with h.mu held.
func (h *testHook) lagging(p *parked) bool {
	if p.sizeSeen < h.lastSize.Load() {
		return true
	}
	if p.pred == "" {
		return p.seen < h.lastWrite.Load()
	}
	return p.seen < h.wroteTo[p.pred]
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

func (h *testHook) sizeEvent() {
	if h == nil {
		return
	}
	if f := h.beforeSizeEvent.Load(); f != nil {
		(*f)()
	}
}

// wallNow reads the wall clock, moved ahead in the tests by wallAhead;
// the result has no monotonic reading, so comparisons with it go by the
// wall clock only.
func (h *testHook) wallNow() time.Time {
	now := time.Now().Round(0)
	if h != nil {
		now = now.Add(time.Duration(h.wallAhead.Load()))
	}
	return now
}

func (h *testHook) watched() {
	if h != nil {
		h.watches.Add(1)
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
