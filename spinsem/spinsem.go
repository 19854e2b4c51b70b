// Package spinsem is a weighted semaphore built like sync.Mutex: permits live
// in one atomic word, a goroutine that finds too few spins briefly before it
// parks, and a starvation mode hands permits directly to a waiter that has
// waited too long.
//
// # Design
//
// The state word holds the number of free permits above a resize
// generation, a small counter and four flags: starving (permits go to the
// head of the queue, nobody else may take them), woken (the head of the
// queue has been woken and is on its way to try again, so a Release need not
// wake anyone), waiting (the wait queue is not empty) and closed. The free
// permits are signed: a shrink may leave more held than the size.
//
// Fast path. Acquire takes its permits with one compare-and-swap when enough
// are free and the semaphore is not starving, whether or not goroutines are
// parked: a running goroutine may barge past sleeping ones, which is what
// makes the semaphore fast under contention. Release adds its permits with
// one compare-and-swap (a CAS rather than an add, so that an over-release
// panics before anything changes) and takes the slow path only when a parked
// goroutine may need it: the queue is not empty and nobody has been woken,
// or the semaphore is starving.
//
// Spin. When the permits are not free, Acquire spins before it parks, on
// the bet that a holder releases sooner than parking and waking would take.
// It spins only where this can pay off: with more than one P, and not in
// starvation mode (where permits are handed to parked waiters, so spinning
// could never win). A round re-reads the state, tries the CAS if the permits
// are free, checks the context and then busy-waits briefly. The number of
// rounds adapts, in the spirit of glibc's adaptive mutex: a phase spins at
// most twice the running average of the rounds that successful phases
// needed, plus spinMin, and never more than spinMax; failed phases pull the
// average down, so a phase stays far shorter than a park and a wake-up.
// Spinning never happens while holding the internal mutex, and it stops at
// once, acquiring nothing, when the context is done.
//
// Park. A goroutine that still cannot acquire takes the internal mutex,
// tries once more, and otherwise sets the waiting flag in the same
// compare-and-swap that confirmed the permits were short (so a Release that
// follows is bound to see it), queues itself at the tail of a FIFO queue
// (internal/waitq) and blocks on its own wake channel or on ctx.Done().
// Parking and waking use channels, never the mutex, so testing/synctest sees
// parked goroutines as durably blocked.
//
// Normal mode. A Release that takes the slow path wakes the head of the
// queue if its request fits in the free permits, and sets woken; Releases
// that follow leave the queue alone until the woken goroutine has tried
// again. The woken goroutine competes with arriving ones and may lose: then
// it stays at the front of the queue, where it was (sync.Mutex re-queues it
// at the front; here it never leaves), and keeps its arrival time. Whoever
// clears the woken flag (the woken goroutine, whether it won or lost, or its
// cancellation) looks at the queue again and wakes the next head if it fits,
// so no wake-up is lost. A head that does not fit blocks the waiters behind
// it, but not arriving goroutines.
//
// Starvation mode. Barging can starve a waiter forever, especially a large
// request that needs many permits free at once while small requests keep
// cycling. The semaphore switches to starvation mode when the head of the
// queue has waited more than starvationThreshold, the threshold of
// sync.Mutex's starvation mode (measured with the monotonic clock, which
// testing/synctest fakes), and either does not fit when a Release looks at
// it, or was woken and lost, or was woken and has not run yet. The last case matters on a busy machine: a
// woken goroutine may wait a whole scheduler time slice for a processor while
// the barging goroutines never block, and meanwhile Releases skip the queue.
// So every 64th Release that skips counts in the state word's counter, and
// takes the slow path anyway to check the head's age. In starvation mode
// arriving goroutines neither take permits nor spin (Acquire queues at the
// tail, TryAcquire fails), and freed permits accumulate until they are
// handed, under the mutex, directly to the head of the queue: its permits are
// taken for it, Granted is set and it is woken already holding them, even if
// it was on its way. Waiters are served strictly in queue order, so a large
// request is never passed. The semaphore returns to normal mode when the
// queue empties, or when a handoff goes to a waiter that had waited less than
// the threshold (the rule of sync.Mutex: the waiters behind it arrived later
// still, so nobody starves any more, and the strictly ordered mode costs
// throughput).
//
// Fairness trade-off. Normal mode gives throughput: a goroutine that is
// running takes permits without a context switch, and may take them many
// times in a row while others sleep, so there is no FIFO order and TryAcquire
// barges past waiters. Starvation mode bounds the wait: a waiter is passed by
// barging goroutines for about the threshold at most, then served in queue
// order, whatever its weight.
//
// Cancellation. A done context is checked before anything is taken, and
// while parked. A parked waiter whose context is done leaves the queue
// (waking or serving whoever may now proceed), and the semaphore is as if
// it had never asked. A cancellation that comes before the permits are
// taken wins: every place where a waiter may take them (a spin round, the
// last try under the mutex before it queues, its turn after a wake-up) looks
// at its context just before, and a handoff in starvation mode looks at the
// head's context under the mutex and fails the head instead if it is done.
// Permits once taken or handed over are kept: a waiter never gives them
// back on its way out, when another goroutine may already have released
// them.
//
// Resize, Close, observation. Each folds into the word the fast paths
// already read, so they gain no work. Close sets the closed flag, which
// Acquire and TryAcquire test in the same mask as starving, so a closed
// semaphore sends them to the slow path, which fails; parked waiters are
// taken out of the queue and woken to fail. Resize adds the difference of
// sizes to the free permits (below zero if need be) and bumps the
// generation in one compare-and-swap, so a concurrent fast path's
// compare-and-swap fails and it looks again; the size itself lives outside
// the word, in the slot the generation picks (Resize explains why that
// snapshot is exact). Waiting counts parked waiters; OnWait's function is
// looked up only on the slow path.
//
// # Tuning
//
// The spin budget (spinMin, spinMax, spinIters) and starvationThreshold are
// constants. They were chosen by running the harness's scenarios with each
// alternative: no spinning, runtime.Gosched between rounds, longer fixed
// and adaptive budgets. Spinning a few rounds helped; long adaptive phases
// did not, because with more goroutines than processors the holder is often
// not running. Yielding between rounds was dangerous: when the other
// goroutines never block, one yield can cost a whole time slice, and a large
// request that spun with Gosched waited many of them before it even parked.
// That comparison is BenchmarkSpin in spinsem/spin_test.go at commit
// bf1cebcba9f7 (run it there with `go test -bench Spin ./spinsem` and
// compare with `benchstat -col /spin`). BenchmarkSemaphore in benchmarks
// measures the shipped configuration against sync.Mutex, a raw channel and
// x/sync's Weighted; BenchmarkLargeUnderHammer here measures how long a
// large request waits for starvation mode to serve it.
package spinsem

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/check"
	"github.com/semacat/sem/internal/waitq"
)

const pkg = "spinsem"

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
const MaxSize = 35184372088831 // 1<<(63-permitShift) - 1; TestMaxSize checks it

// starvationThreshold is how long the head of the queue may wait before it
// switches the semaphore to starvation mode, as in sync.Mutex.
const starvationThreshold = time.Millisecond

// Semaphore is a weighted semaphore that spins before it parks and switches
// to direct handoff when a waiter starves. It implements sem.Semaphore,
// sem.Resizer, sem.Closer and sem.Observer. The zero value is not usable;
// call New or NewAvailable.
type Semaphore struct {
	state  atomic.Uint64                       // free<<permitShift | gen | skipped | flags
	sizes  [2]atomic.Int64                     // the size is sizes[gen&1] (see Resize)
	epoch  time.Time                           // the zero of the waiters' arrival times (monotonic)
	onWait atomic.Pointer[func(sem.WaitEvent)] // OnWait's function, or nil

	// spins is the running average of the spin rounds a spin phase needed,
	// kept apart from state so that updating it does not slow the fast path.
	_     [64]byte
	spins atomic.Int32

	mu     sync.Mutex    // guards q, parked and wokenW, every change to the flags and the size
	q      waitq.Queue   // parked waiters; Since is the arrival time since epoch, or a failure mark
	wokenW *waitq.Waiter // the waiter the woken flag stands for, still queued

	// parked holds the waiters in q, so that Close, Resize and Waiting can
	// visit them all; q keeps their order.
	parked map[*waitq.Waiter]struct{}
}

// New returns a semaphore with size permits, all free. It panics if size is
// less than 1 or more than MaxSize.
func New(size int64) *Semaphore {
	check.Size(pkg, size)
	check.SizeAtMost(pkg, "New", size, MaxSize)
	return newSemaphore(size, size)
}

// NewAvailable returns a semaphore with size permits of which only available
// are free, as if size-available were held: Release may give back up to
// that many more than were acquired. NewAvailable(1, 0) is a signalling
// semaphore, whose Acquire waits for another goroutine's Release(1). It
// panics if size is less than 1 or more than MaxSize, or if available is
// negative or more than size.
func NewAvailable(size, available int64) *Semaphore {
	check.AvailableAtMost(pkg, "NewAvailable", size, available, MaxSize)
	return newSemaphore(size, available)
}

func newSemaphore(size, available int64) *Semaphore {
	s := &Semaphore{epoch: time.Now(), parked: make(map[*waitq.Waiter]struct{})}
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
	check.Weight(pkg, "Acquire", n)
	if done := ctx.Done(); done != nil {
		select {
		case <-done:
			if err := s.exceeds(n); err != nil {
				return err
			}
			return ctx.Err()
		default:
		}
	}
	if n == 0 {
		return closedErr(s.state.Load(), n)
	}
	// Free permits never outnumber the size, so a request that finds
	// enough free needs no size check; acquireSlow makes it.
	old := s.state.Load()
	if old&noBarging == 0 && free(old) >= n && s.state.CompareAndSwap(old, old-uint64(n)<<permitShift) {
		return nil
	}
	return s.acquireSlow(ctx, n)
}

// exceeds returns the error of Acquire(n) if n exceeds the size, or nil.
func (s *Semaphore) exceeds(n int64) error {
	if size := s.Size(); n > size {
		return check.ExceedsSize(pkg, n, size)
	}
	return nil
}

// TryAcquire takes n permits only if it can do so at once, and reports
// whether it did. It takes all n or none. It may take permits while others
// wait, except in starvation mode, where it fails. After Close it reports
// false. TryAcquire(0) reports true unless the semaphore is closed. It
// panics if n < 0.
func (s *Semaphore) TryAcquire(n int64) bool {
	check.Weight(pkg, "TryAcquire", n)
	if n == 0 {
		return s.state.Load()&closed == 0
	}
	for {
		old := s.state.Load()
		if old&noBarging != 0 || free(old) < n {
			return false
		}
		if s.state.CompareAndSwap(old, old-uint64(n)<<permitShift) {
			return true
		}
	}
}

// Release returns n permits and wakes, or hands them to, a parked waiter
// when one may now proceed. It panics if n is negative or more than the
// permits held; the check happens before any permit is returned. It is
// accepted after Close.
func (s *Semaphore) Release(n int64) {
	check.Weight(pkg, "Release", n)
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
