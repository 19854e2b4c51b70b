// Package spinsem is a weighted semaphore built like sync.Mutex: permits live
// in one atomic word, a goroutine that finds too few spins briefly before it
// parks, and a starvation mode hands permits directly to a waiter that has
// waited too long.
//
// It keeps the whole sem contract. Beyond it: no starvation. It does not
// serve waiters in arrival order: a running goroutine may take free permits
// before a parked one, which is what makes it fast, until a waiter has
// waited past the threshold of sync.Mutex's starvation mode; then permits go
// to the waiters in queue order, whatever their weight, until the queue has
// caught up. It implements sem.Resizer, sem.Closer and sem.Observer, and
// NewAvailable starts it with fewer free permits than its size.
//
// Choose spinsem for a hot semaphore whose permits are held briefly, where
// throughput matters more than arrival order; choose weighted for strict
// arrival order.
//
//	s := spinsem.New(8)
//	if err := s.Acquire(ctx, 1); err != nil {
//		return err // ctx is done: nothing was acquired
//	}
//	defer s.Release(1)
//
// How it works, and how its spin budget was tuned, is told in a comment in
// design.go and, with diagrams and measurements, in the course's
// page at https://github.com/semacat/sem/blob/main/docs/spinsem.md.
package spinsem

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/semacat/sem/internal/check"
	"github.com/semacat/sem/internal/observe"
	"github.com/semacat/sem/internal/waitq"
)

const pkg check.Pkg = "spinsem"

// The state word: free permits, a resize generation, a counter and four
// flags.
const (
	starving = 1 << iota // handoff mode: permits go to the head of the queue only
	woken                // a woken waiter will try again; Release need not wake another
	waiting              // the queue is not empty
	closed               // Close was called: Acquire fails, TryAcquire reports false

	// skipped counts, modulo skipMax+1, the Releases that did not look at
	// the queue because a woken waiter was on its way. When it wraps, the
	// Release looks anyway, to catch a head that starves while the woken
	// goroutine waits for a processor (see Design).
	skipShift = iota
	skipBits  = 6
	skipMax   = 1<<skipBits - 1
	skipMask  = skipMax << skipShift

	// gen counts the Resizes, modulo 1<<genBits; its low bit picks which of
	// the two size slots holds the size (see Resize).
	genShift = skipShift + skipBits
	genBits  = 8
	genMask  = (1<<genBits - 1) << genShift

	permitShift = genShift + genBits // free permits are int64(state) >> permitShift
)

// noBarging is the flags under which an arriving goroutine may not take free
// permits: one test on the fast path covers both.
const noBarging = starving | closed

// MaxSize is the largest size a semaphore can have, 2^45-1: the free
// permits share one 64-bit word with 18 bits of flags and counters, and are
// signed, since after a Resize that shrinks the semaphore more permits may
// be held than its size.
const MaxSize = 35184372088831 // 1<<45 - 1; TestMaxSizeLiteral checks it against the word's layout

// starvationThreshold is how long the head of the queue may wait before it
// switches the semaphore to starvation mode, as in sync.Mutex.
const starvationThreshold = time.Millisecond

// Semaphore is a weighted semaphore that spins before it parks and switches
// to direct handoff when a waiter starves. It implements sem.Semaphore,
// sem.Resizer, sem.Closer and sem.Observer. The zero value is not usable;
// call New or NewAvailable.
type Semaphore struct {
	state  atomic.Uint64   // free<<permitShift | gen | skipped | flags
	sizes  [2]atomic.Int64 // the size is sizes[gen&1] (see Resize)
	epoch  time.Time       // the zero of the waiters' arrival times (monotonic)
	onWait observe.Hook
	test   *testHooks // nil outside tests

	// spins is the running average of the spin rounds a spin phase needed,
	// kept apart from state so that updating it does not slow the fast path.
	_     [64]byte
	spins atomic.Int32

	mu     sync.Mutex    // guards q and wokenW, every change to the flags and the size
	q      waitq.Queue   // parked waiters; Since is the arrival time since epoch
	wokenW *waitq.Waiter // the waiter the woken flag stands for, still queued
}

// testHooks are what a test installs on one semaphore: functions to run at
// the moments their fields name, and a number of processors to pretend.
type testHooks struct {
	// spin runs at the end of each spin round that found the permits
	// short and the context not done, before the pause.
	spin func()
	// park runs just before a queued waiter blocks, the moment at which
	// its wake-up and its context may both become ready.
	park func()
	// procs, if not 0, stands for GOMAXPROCS.
	procs int32
}

// New returns a semaphore with size permits, all free. It panics if size is
// less than 1 or more than MaxSize.
func New(size int64) *Semaphore {
	pkg.PanicIfBadSize("New", size, MaxSize)
	return newSemaphore(size, size)
}

// NewAvailable returns a semaphore with size permits of which only available
// are free, as if size-available were held: Release may give back up to
// that many more than were acquired. NewAvailable(1, 0) is a signalling
// semaphore, whose Acquire waits for another goroutine's Release(1). It
// panics if size is less than 1 or more than MaxSize, or if available is
// negative or more than size.
func NewAvailable(size, available int64) *Semaphore {
	pkg.PanicIfBadAvailable("NewAvailable", size, available, MaxSize)
	return newSemaphore(size, available)
}

func newSemaphore(size, available int64) *Semaphore {
	s := &Semaphore{epoch: time.Now()}
	s.sizes[0].Store(size)
	s.state.Store(uint64(available) << permitShift)
	return s
}

// Size returns the total number of permits.
func (s *Semaphore) Size() int64 { return s.sizeAt(s.state.Load()) }

// sizeAt returns the size of the semaphore when its state was state.
func (s *Semaphore) sizeAt(state uint64) int64 { return s.sizes[state>>genShift&1].Load() }

// Available returns the number of permits free at this instant: the size
// minus the permits held, negative while a shrink leaves more permits held
// than the size. In starvation mode free permits may be set aside for the
// head of the queue. It is a snapshot for monitoring and teaching, stale as
// soon as it returns.
func (s *Semaphore) Available() int64 { return free(s.state.Load()) }

// free returns the free permits in state, negative when more are held than
// the size.
func free(state uint64) int64 { return int64(state) >> permitShift }

// Acquire takes n permits, blocking until they are available or ctx is done.
// It does not serve waiters in arrival order: a running goroutine may take
// permits before a parked one, unless a waiter has waited past the
// starvation threshold, the one sync.Mutex uses for its starvation mode.
//
// On success it returns nil and the caller holds n permits. If ctx is already
// done it returns ctx.Err() without acquiring, even when permits are free; if
// ctx is done while it spins or waits, it returns ctx.Err() holding nothing,
// and the semaphore is as if it had never been called; once its permits
// are taken or handed to it, it returns nil even if ctx is done by then. If n exceeds the size it returns at once an
// error wrapping sem.ErrExceedsSize. After Close it returns an error
// wrapping sem.ErrClosed (or ctx.Err() if ctx is done). Acquire(ctx, 0)
// returns the same errors without blocking, and otherwise nil. It panics if
// n < 0.
func (s *Semaphore) Acquire(ctx context.Context, n int64) error {
	pkg.PanicIfNegative("Acquire", n)
	// Free permits never outnumber the size, so a request that finds
	// enough free needs no size check; acquireSlow makes it.
	old := s.state.Load()
	if n > 0 && old&noBarging == 0 && free(old) >= n && ctx.Err() == nil && s.takeFrom(old, n) {
		return nil
	}
	return s.acquireSlow(ctx, n)
}

// takeFrom takes n permits if the state is still old, and reports whether
// it did. An Acquire looks at its context after it loads old and before it
// calls takeFrom, never before the load: if the swap succeeds, the state
// held old from the load on, so the permits were free when the context was
// not yet done, and the Acquire takes effect there. Looked at before the
// load, the context could be canceled and the permits freed by a Release
// between the look and the load: a grant after a cancellation that came
// first. The swap cannot see a state that changed and changed back in
// those few instructions, permits taken and given back by others.
func (s *Semaphore) takeFrom(old uint64, n int64) bool {
	return s.state.CompareAndSwap(old, old-uint64(n)<<permitShift)
}

// exceeds returns the error of Acquire(n) if n exceeds the size, or nil.
func (s *Semaphore) exceeds(n int64) error {
	if size := s.Size(); n > size {
		return pkg.ErrExceedsSize(n, size)
	}
	return nil
}

// TryAcquire takes n permits only if it can do so at once, and reports
// whether it did. It takes all n or none. It may take permits while others
// wait, except in starvation mode, where it fails. After Close it reports
// false. TryAcquire(0) reports true unless the semaphore is closed. It
// panics if n < 0.
func (s *Semaphore) TryAcquire(n int64) bool {
	pkg.PanicIfNegative("TryAcquire", n)
	if n == 0 {
		return s.state.Load()&closed == 0
	}
	for {
		old := s.state.Load()
		if old&noBarging != 0 || free(old) < n {
			return false
		}
		if s.takeFrom(old, n) {
			return true
		}
	}
}

// Release returns n permits and wakes, or hands them to, a parked waiter
// when one may now proceed. It panics if n is negative or more than the
// permits held; the check happens before any permit is returned. It is
// accepted after Close.
func (s *Semaphore) Release(n int64) {
	pkg.PanicIfNegative("Release", n)
	if n == 0 {
		return
	}
	for {
		old := s.state.Load()
		if n > s.sizeAt(old)-free(old) {
			s.releaseChecked(n)
			return
		}
		new := old + uint64(n)<<permitShift
		slow := false
		if new&(starving|waiting) != 0 {
			new, slow = skipOrLook(new)
		}
		if s.state.CompareAndSwap(old, new) {
			if slow {
				s.releaseSlow()
			}
			return
		}
	}
}

// skipOrLook decides whether a Release that leaves the state new must look
// at the queue, and counts the Releases that do not because a woken waiter is
// on its way.
func skipOrLook(new uint64) (uint64, bool) {
	switch {
	case new&starving != 0, new&woken == 0:
		return new, true
	case new&skipMask == skipMask:
		return new &^ skipMask, true
	default:
		return new + 1<<skipShift, false
	}
}
