package handoff

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/semacat/sem/internal/check"
)

// addPkg names the additive contenders in their errors and panics: the
// package, as semtest wants.
const addPkg check.Pkg = "handoff"

// addChecks is addState with what Close and Resize make every call look
// at: the argument checks, the size kept in an atomic word and loaded by
// Acquire and by a fast-path Release, the closed flag and the debt of a
// shrink, looked at under the mutex.
type addChecks struct {
	state  atomic.Uint64
	size   atomic.Int64
	mu     sync.Mutex
	q      addQueue
	owed   int64
	closed bool
}

func newAddChecks(size int64) *addChecks {
	addPkg.PanicIfBadSize("New", size, check.Unbounded)
	s := &addChecks{}
	s.size.Store(size)
	s.state.Store(uint64(size) << 1)
	return s
}

func (s *addChecks) Acquire(ctx context.Context, n int64) error {
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

func (s *addChecks) acquireSlow(ctx context.Context, n int64) error {
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
	s.mu.Unlock()
	err := addWait(w, s.cancel)
	s.q.put(w)
	return err
}

func (s *addChecks) cancel(w *addNode) error {
	s.mu.Lock()
	if w.queued {
		s.q.remove(w)
		s.store(s.freeze())
		return w.ctx.Err()
	}
	s.mu.Unlock()
	<-w.wake
	return w.err
}

func (s *addChecks) TryAcquire(n int64) bool {
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

func (s *addChecks) Release(n int64) {
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

func (s *addChecks) releaseSlow(n int64) {
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
func (s *addChecks) Close() error {
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
func (s *addChecks) Resize(size int64) {
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
			w.link, failed = failed, w
		}
		w = next
	}
	s.store(uint64(max(size-held, 0))<<1 | addSlow)
	wakeAll(failed)
}

// freeze, with s.mu held, sets the slow bit and returns the word.
func (s *addChecks) freeze() uint64 {
	st := s.state.Load()
	if st&addSlow == 0 {
		st = s.state.Or(addSlow) | addSlow
	}
	return st
}

// store, with s.mu held, grants from the frozen word st, stores what is
// left, unlocks and wakes the waiters granted or failed. It clears the
// slow bit when the queue empties, unless the semaphore is closed or owes.
func (s *addChecks) store(st uint64) {
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
