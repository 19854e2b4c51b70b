package handoff

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/check"
	"github.com/semacat/sem/internal/observe"
)

// addHook is addChecks with sem.Observer: the hook that OnWait installs,
// loaded by every Acquire that queues, and the counts Waiting reports,
// kept under the mutex as waiters come and go.
type addHook struct {
	state  atomic.Uint64
	size   atomic.Int64
	mu     sync.Mutex
	q      addQueue
	owed   int64
	closed bool
	onWait observe.Hook
	len    int   // waiters queued
	wanted int64 // permits they ask for
}

func newAddHook(size int64) *addHook {
	addPkg.PanicIfBadSize("New", size, check.Unbounded)
	s := &addHook{}
	s.size.Store(size)
	s.state.Store(uint64(size) << 1)
	return s
}

func (s *addHook) Acquire(ctx context.Context, n int64) error {
	addPkg.PanicIfNegative("Acquire", n)
	if size := s.size.Load(); n > size {
		return addPkg.ErrExceedsSize(n, size)
	}
	for {
		old := s.state.Load()
		if old&addSlow != 0 || int64(old>>1) < n {
			return s.acquireSlow(ctx, n)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.state.CompareAndSwap(old, old-uint64(n)<<1) {
			return nil
		}
	}
}

func (s *addHook) acquireSlow(ctx context.Context, n int64) error {
	s.mu.Lock()
	for {
		old := s.state.Load()
		if err := addPkg.ErrNow(ctx, n, s.size.Load(), s.closed); err != nil {
			s.mu.Unlock()
			return err
		}
		if old&addSlow == 0 {
			if int64(old>>1) >= n {
				if s.state.CompareAndSwap(old, old-uint64(n)<<1) {
					s.mu.Unlock()
					return nil
				}
				continue
			}
			if !s.state.CompareAndSwap(old, old|addSlow) {
				continue
			}
		}
		break
	}
	w := s.q.pushBack(ctx, n)
	s.len++
	s.wanted += n
	s.mu.Unlock()
	o := s.onWait.Start(n)
	err := o.End(addWait(w, s.cancel))
	s.q.put(w)
	return err
}

func (s *addHook) cancel(w *addNode) error {
	s.mu.Lock()
	if w.queued {
		s.q.remove(w)
		s.len--
		s.wanted -= w.n
		s.store(s.freeze())
		return w.ctx.Err()
	}
	s.mu.Unlock()
	<-w.wake
	return w.err
}

func (s *addHook) TryAcquire(n int64) bool {
	addPkg.PanicIfNegative("TryAcquire", n)
	for {
		old := s.state.Load()
		if old&addSlow != 0 {
			s.mu.Lock()
			st := s.freeze()
			ok := !s.closed && s.q.head == nil && int64(st>>1) >= n
			if ok {
				st -= uint64(n) << 1
			}
			s.store(st)
			return ok
		}
		if int64(old>>1) < n {
			return false
		}
		if s.state.CompareAndSwap(old, old-uint64(n)<<1) {
			return true
		}
	}
}

func (s *addHook) Release(n int64) {
	addPkg.PanicIfNegative("Release", n)
	for {
		old := s.state.Load()
		if old&addSlow != 0 || n > s.size.Load()-int64(old>>1) {
			s.releaseSlow(n)
			return
		}
		if s.state.CompareAndSwap(old, old+uint64(n)<<1) {
			return
		}
	}
}

func (s *addHook) releaseSlow(n int64) {
	s.mu.Lock()
	st := s.freeze()
	if held := s.size.Load() - int64(st>>1) + s.owed; n > held {
		s.store(st)
		addPkg.PanicOverRelease(n, held)
	}
	paid := min(n, s.owed)
	s.owed -= paid
	s.store(st + uint64(n-paid)<<1)
}

// Close fails every waiter and every later Acquire.
func (s *addHook) Close() error {
	s.mu.Lock()
	s.closed = true
	st := s.freeze()
	for w := s.q.head; w != nil; w = w.next {
		w.err = addPkg.ErrClosed(w.n)
	}
	s.store(st)
	return nil
}

// Resize sets the size, keeping a debt if more are held than the new size.
func (s *addHook) Resize(size int64) {
	addPkg.PanicIfBadSize("Resize", size, check.Unbounded)
	s.mu.Lock()
	st := s.freeze()
	held := s.size.Load() - int64(st>>1) + s.owed
	s.size.Store(size)
	s.owed = max(held-size, 0)
	var failed *addNode
	for w := s.q.head; w != nil; {
		next := w.next
		if w.n > size {
			w.err = addPkg.ErrExceedsSize(w.n, size)
			s.q.remove(w)
			s.len--
			s.wanted -= w.n
			w.link, failed = failed, w
		}
		w = next
	}
	s.store(uint64(max(size-held, 0))<<1 | addSlow)
	wakeAll(failed)
}

// freeze, with s.mu held, sets the slow bit and returns the word.
func (s *addHook) freeze() uint64 {
	st := s.state.Load()
	if st&addSlow == 0 {
		st = s.state.Or(addSlow) | addSlow
	}
	return st
}

// store, with s.mu held, grants from the frozen word st, stores what is
// left, unlocks and wakes the waiters granted or failed. It clears the
// slow bit when the queue empties, unless the semaphore is closed or owes.
func (s *addHook) store(st uint64) {
	var woken, last *addNode
	for w := s.q.head; ; w = s.q.head {
		if w == nil {
			if !s.closed && s.owed == 0 {
				st &^= addSlow
			}
			break
		}
		if w.done != nil && w.err == nil {
			select {
			case <-w.done:
				w.err = w.ctx.Err()
			default:
			}
		}
		if w.err == nil {
			if w.n > int64(st>>1) {
				break
			}
			st -= uint64(w.n) << 1
		}
		s.q.remove(w)
		s.len--
		s.wanted -= w.n
		if last == nil {
			woken = w
		} else {
			last.link = w
		}
		last = w
	}
	s.state.Store(st)
	s.mu.Unlock()
	wakeAll(woken)
}

// Waiting reports the queued Acquires and the permits they ask for.
func (s *addHook) Waiting() (int, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.len, s.wanted
}

// OnWait installs f to be called by every Acquire that queued.
func (s *addHook) OnWait(f func(sem.WaitEvent)) { s.onWait.Set(f) }

// addPool is addHook with weighted's way of recycling a node: the woken
// waiter clears its fields before it pushes it back, and the list of the
// waiters to wake is kept in the semaphore, not on the granting call's
// stack. What weighted does beyond it is the shape of its code: the test
// hooks it looks for, and the functions its paths are split into.
type addPool struct {
	state  atomic.Uint64
	size   atomic.Int64
	mu     sync.Mutex
	q      addQueue
	owed   int64
	closed bool
	onWait observe.Hook
	len    int   // waiters queued
	wanted int64 // permits they ask for
	// woken lists the waiters to wake after the unlock, as weighted's.
	woken, wokenTail *addNode
}

func newAddPool(size int64) *addPool {
	addPkg.PanicIfBadSize("New", size, check.Unbounded)
	s := &addPool{}
	s.size.Store(size)
	s.state.Store(uint64(size) << 1)
	return s
}

func (s *addPool) Acquire(ctx context.Context, n int64) error {
	addPkg.PanicIfNegative("Acquire", n)
	if size := s.size.Load(); n > size {
		return addPkg.ErrExceedsSize(n, size)
	}
	for {
		old := s.state.Load()
		if old&addSlow != 0 || int64(old>>1) < n {
			return s.acquireSlow(ctx, n)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.state.CompareAndSwap(old, old-uint64(n)<<1) {
			return nil
		}
	}
}

func (s *addPool) acquireSlow(ctx context.Context, n int64) error {
	s.mu.Lock()
	for {
		old := s.state.Load()
		if err := addPkg.ErrNow(ctx, n, s.size.Load(), s.closed); err != nil {
			s.mu.Unlock()
			return err
		}
		if old&addSlow == 0 {
			if int64(old>>1) >= n {
				if s.state.CompareAndSwap(old, old-uint64(n)<<1) {
					s.mu.Unlock()
					return nil
				}
				continue
			}
			if !s.state.CompareAndSwap(old, old|addSlow) {
				continue
			}
		}
		break
	}
	w := s.q.pushBack(ctx, n)
	s.len++
	s.wanted += n
	s.mu.Unlock()
	o := s.onWait.Start(n)
	err := o.End(addWait(w, s.cancel))
	w.n, w.ctx, w.done, w.err = 0, nil, nil, nil
	s.q.put(w)
	return err
}

func (s *addPool) cancel(w *addNode) error {
	s.mu.Lock()
	if w.queued {
		s.q.remove(w)
		s.len--
		s.wanted -= w.n
		s.store(s.freeze())
		return w.ctx.Err()
	}
	s.mu.Unlock()
	<-w.wake
	return w.err
}

func (s *addPool) TryAcquire(n int64) bool {
	addPkg.PanicIfNegative("TryAcquire", n)
	for {
		old := s.state.Load()
		if old&addSlow != 0 {
			s.mu.Lock()
			st := s.freeze()
			ok := !s.closed && s.q.head == nil && int64(st>>1) >= n
			if ok {
				st -= uint64(n) << 1
			}
			s.store(st)
			return ok
		}
		if int64(old>>1) < n {
			return false
		}
		if s.state.CompareAndSwap(old, old-uint64(n)<<1) {
			return true
		}
	}
}

func (s *addPool) Release(n int64) {
	addPkg.PanicIfNegative("Release", n)
	for {
		old := s.state.Load()
		if old&addSlow != 0 || n > s.size.Load()-int64(old>>1) {
			s.releaseSlow(n)
			return
		}
		if s.state.CompareAndSwap(old, old+uint64(n)<<1) {
			return
		}
	}
}

func (s *addPool) releaseSlow(n int64) {
	s.mu.Lock()
	st := s.freeze()
	if held := s.size.Load() - int64(st>>1) + s.owed; n > held {
		s.store(st)
		addPkg.PanicOverRelease(n, held)
	}
	paid := min(n, s.owed)
	s.owed -= paid
	s.store(st + uint64(n-paid)<<1)
}

// Close fails every waiter and every later Acquire.
func (s *addPool) Close() error {
	s.mu.Lock()
	s.closed = true
	st := s.freeze()
	for w := s.q.head; w != nil; w = w.next {
		w.err = addPkg.ErrClosed(w.n)
	}
	s.store(st)
	return nil
}

// Resize sets the size, keeping a debt if more are held than the new size.
func (s *addPool) Resize(size int64) {
	addPkg.PanicIfBadSize("Resize", size, check.Unbounded)
	s.mu.Lock()
	st := s.freeze()
	held := s.size.Load() - int64(st>>1) + s.owed
	s.size.Store(size)
	s.owed = max(held-size, 0)
	for w := s.q.head; w != nil; {
		next := w.next
		if w.n > size {
			w.err = addPkg.ErrExceedsSize(w.n, size)
			s.q.remove(w)
			s.len--
			s.wanted -= w.n
			if s.woken == nil {
				s.woken = w
			} else {
				s.wokenTail.link = w
			}
			s.wokenTail = w
		}
		w = next
	}
	s.store(uint64(max(size-held, 0))<<1 | addSlow)
}

// freeze, with s.mu held, sets the slow bit and returns the word.
func (s *addPool) freeze() uint64 {
	st := s.state.Load()
	if st&addSlow == 0 {
		st = s.state.Or(addSlow) | addSlow
	}
	return st
}

// store, with s.mu held, grants from the frozen word st, stores what is
// left, unlocks and wakes the waiters granted or failed. It clears the
// slow bit when the queue empties, unless the semaphore is closed or owes.
func (s *addPool) store(st uint64) {
	for w := s.q.head; ; w = s.q.head {
		if w == nil {
			if !s.closed && s.owed == 0 {
				st &^= addSlow
			}
			break
		}
		if w.done != nil && w.err == nil {
			select {
			case <-w.done:
				w.err = w.ctx.Err()
			default:
			}
		}
		if w.err == nil {
			if w.n > int64(st>>1) {
				break
			}
			st -= uint64(w.n) << 1
		}
		s.q.remove(w)
		s.len--
		s.wanted -= w.n
		if s.woken == nil {
			s.woken = w
		} else {
			s.wokenTail.link = w
		}
		s.wokenTail = w
	}
	s.state.Store(st)
	woken := s.woken
	s.woken, s.wokenTail = nil, nil
	s.mu.Unlock()
	wakeAll(woken)
}

// Waiting reports the queued Acquires and the permits they ask for.
func (s *addPool) Waiting() (int, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.len, s.wanted
}

// OnWait installs f to be called by every Acquire that queued.
func (s *addPool) OnWait(f func(sem.WaitEvent)) { s.onWait.Set(f) }
