// Package spinsem is a weighted semaphore built like sync.Mutex: permits live
// in one atomic word, a goroutine that finds too few spins briefly before it
// parks, and a starvation mode hands permits directly to a waiter that has
// waited too long.
//
// # Design
//
// The state word holds the number of free permits above a small counter and
// three flags: starving (permits go to the head of the queue, nobody else
// may take them), woken (the head of the queue has been woken and is on its
// way to try again, so a Release need not wake anyone) and waiting (the wait
// queue is not empty).
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
// are free, checks the context and then busy-waits a few nanoseconds. The
// number of rounds adapts, in the spirit of glibc's adaptive mutex: a phase
// spins at most twice the running average of the rounds that successful
// phases needed, plus 4, and never more than 16; failed phases pull the
// average down. A phase is thus bounded to a few hundred nanoseconds.
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
// queue has waited more than 1ms (measured with the monotonic clock, which
// testing/synctest fakes) and either does not fit when a Release looks at
// it, or was woken and lost, or was woken and has not run yet. The last case
// matters on a busy machine: a woken goroutine may wait a whole scheduler
// time slice (10ms) for a processor while the barging goroutines never
// block, and meanwhile Releases skip the queue. So every 64th Release that
// skips counts in the state word's counter, and takes the slow path anyway
// to check the head's age. In starvation mode arriving goroutines neither
// take permits nor spin (Acquire queues at the tail, TryAcquire fails), and
// freed permits accumulate until they are handed, under the mutex, directly
// to the head of the queue: its permits are taken for it, Granted is set and
// it is woken already holding them, even if it was on its way. Waiters are
// served strictly in queue order, so a large request is never passed. The
// semaphore returns to normal mode when the queue empties, or when a handoff
// goes to a waiter that had waited less than 1ms (the rule of sync.Mutex:
// the waiters behind it arrived later still, so nobody starves any more, and
// the strictly ordered mode costs throughput).
//
// Fairness trade-off. Normal mode gives throughput: a goroutine that is
// running takes permits without a context switch, and may take them many
// times in a row while others sleep, so there is no FIFO order and
// TryAcquire barges past waiters. Starvation mode bounds the wait: a waiter
// is passed by barging goroutines for about 1ms at most, then served in
// queue order, whatever its weight.
//
// Cancellation. A done context is checked before anything is taken, between
// spin rounds, and while parked. A parked waiter whose context is done
// leaves the queue (waking or serving whoever may now proceed), and the
// semaphore is as if it had never asked. A waiter to which permits were
// handed at the moment its context was done returns nil holding them if it
// saw the handoff first, or hands them on and returns the context's error;
// never both.
//
// # Measurements
//
// From `go test -bench 'BenchmarkSpin' ./spinsem`, on 2 cores shared with
// other jobs (so noisy: ±30-70%), medians of 6 runs, ns per Acquire+Release
// through the sem.Semaphore interface:
//
//	scenario              no spin   Gosched x4   busy x4   busy adaptive 4..64
//	16 goroutines, size 1   30.3       25.6        15.9          32.8
//	64 goroutines, size 4   94.5       76.7        61.6         102.0
//	16 goroutines, 1-4 of 8 32.7       20.1        38.2          45.0
//
// Spinning a few rounds helps; long adaptive phases do not, because with
// more goroutines than processors the holder is often not running. Yielding
// (runtime.Gosched) between rounds was as fast in these scenarios but
// dangerous: when the other goroutines never block, one yield can cost a
// whole time slice, and a large request that spun with Gosched waited up to
// seconds before it even parked. Hence short busy rounds, 4 by default and
// at most 16 when spinning keeps succeeding late. BenchmarkSpin's
// large-under-hammer case measures starvation mode: an Acquire(8) arriving
// while 8 goroutines go hand over hand on a semaphore of size 8 waits about
// 1.02ms on average (the 1ms threshold, then the handoff) and 1-4ms at
// worst; without starvation mode it never completes.
//
// Against the references (benchmarks.BenchmarkSemaphore, same shared
// machine, two runs of 8, ratios of medians): uncontended 1.25-1.9x
// sync.Mutex (about 1.7x in a 20-run A/B; the contract's check of an
// already-done context costs about 2ns that the mutex never pays, and the
// over-release check makes Release a load and compare-and-swap where Unlock
// is one atomic add); 16 goroutines on size 1 0.4-1.0x sync.Mutex; 64
// goroutines on size 4 with short work 0.17-0.24x a raw channel; weights 1-4
// on size 8 0.04-0.08x x/sync's Weighted; no allocations.
package spinsem

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/semacat/sem/internal/check"
	"github.com/semacat/sem/internal/waitq"
)

const pkg = "spinsem"

// The state word: free permits above a counter and three flags.
const (
	starving = 1 << iota // handoff mode: permits go to the head of the queue only
	woken                // a woken waiter will try again; Release need not wake another
	waiting              // the queue is not empty

	// skipped counts, modulo skipMax+1, the Releases that did not look at
	// the queue because a woken waiter was on its way. When it wraps, the
	// Release looks anyway, to catch a head that starves while the woken
	// goroutine waits for a processor (see Design).
	skipShift   = iota
	skipBits    = 6
	skipMax     = 1<<skipBits - 1
	skipMask    = skipMax << skipShift
	permitShift = skipShift + skipBits // free permits are state >> permitShift
)

// MaxSize is the largest size a semaphore can have: the free permits share
// one word with the flags.
const MaxSize = 1<<(64-permitShift) - 1

// starvationThreshold is how long the head of the queue may wait before it
// switches the semaphore to starvation mode, as in sync.Mutex.
const starvationThreshold = time.Millisecond

// Semaphore is a weighted semaphore that spins before it parks and switches
// to direct handoff when a waiter starves. It implements sem.Semaphore. The
// zero value is not usable; call New.
type Semaphore struct {
	state atomic.Uint64 // free<<permitShift | waiting | woken | starving
	size  int64
	epoch time.Time // the zero of the waiters' arrival times (monotonic)

	// spins is the running average of the spin rounds a spin phase needed,
	// kept apart from state so that updating it does not slow the fast path.
	_     [64]byte
	spins atomic.Int32

	mu     sync.Mutex    // guards q and wokenW, and every change to the flags
	q      waitq.Queue   // parked waiters; Since is the arrival time since epoch
	wokenW *waitq.Waiter // the waiter the woken flag stands for, still queued
}

// New returns a semaphore with size permits, all free. It panics if size is
// less than 1 or more than MaxSize.
func New(size int64) *Semaphore {
	check.Size(pkg, size)
	check.SizeAtMost(pkg, size, MaxSize)
	s := &Semaphore{size: size, epoch: time.Now()}
	s.state.Store(uint64(size) << permitShift)
	return s
}

// Size returns the total number of permits.
func (s *Semaphore) Size() int64 { return s.size }

// Available returns the number of permits free at this instant. In
// starvation mode free permits may be set aside for the head of the queue.
// It is a snapshot for monitoring and teaching, stale as soon as it returns.
func (s *Semaphore) Available() int64 { return free(s.state.Load()) }

func free(state uint64) int64 { return int64(state >> permitShift) }

// Acquire takes n permits, blocking until they are available or ctx is done.
// It does not serve waiters in arrival order: a running goroutine may take
// permits before a parked one, unless a waiter has been starving for 1ms.
//
// On success it returns nil and the caller holds n permits. If ctx is already
// done it returns ctx.Err() without acquiring, even when permits are free; if
// ctx is done while it spins or waits, it returns ctx.Err() holding nothing,
// and the semaphore is as if it had never been called. If n exceeds the size
// it returns at once an error wrapping sem.ErrExceedsSize. Acquire(ctx, 0)
// returns ctx.Err() without blocking. It panics if n < 0.
func (s *Semaphore) Acquire(ctx context.Context, n int64) error {
	check.Weight(pkg, "Acquire", n)
	if n > s.size {
		return check.ExceedsSize(pkg, n, s.size)
	}
	if done := ctx.Done(); done != nil {
		select {
		case <-done:
			return ctx.Err()
		default:
		}
	}
	if n == 0 {
		return nil
	}
	old := s.state.Load()
	if old&starving == 0 && free(old) >= n && s.state.CompareAndSwap(old, old-uint64(n)<<permitShift) {
		return nil
	}
	return s.acquireSlow(ctx, n)
}

// TryAcquire takes n permits only if it can do so at once, and reports
// whether it did. It takes all n or none. It may take permits while others
// wait, except in starvation mode, where it fails. TryAcquire(0) reports
// true. It panics if n < 0.
func (s *Semaphore) TryAcquire(n int64) bool {
	check.Weight(pkg, "TryAcquire", n)
	if n == 0 {
		return true
	}
	for {
		old := s.state.Load()
		if old&starving != 0 || free(old) < n {
			return false
		}
		if s.state.CompareAndSwap(old, old-uint64(n)<<permitShift) {
			return true
		}
	}
}

// Release returns n permits and wakes, or hands them to, a parked waiter
// when one may now proceed. It panics if n is negative or more than the
// permits held; the check happens before any permit is returned.
func (s *Semaphore) Release(n int64) {
	check.Weight(pkg, "Release", n)
	if n == 0 {
		return
	}
	for {
		old := s.state.Load()
		if held := s.size - free(old); n > held {
			check.OverRelease(pkg, n, held)
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

// releaseSlow serves the queue after a Release.
func (s *Semaphore) releaseSlow() {
	s.mu.Lock()
	s.dispatchLocked()
	s.mu.Unlock()
}

// acquireSlow spins, then parks.
func (s *Semaphore) acquireSlow(ctx context.Context, n int64) error {
	if s.spin(ctx, n) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.park(ctx, n)
}

// park queues a waiter for n permits and blocks until it holds them or ctx
// is done.
func (s *Semaphore) park(ctx context.Context, n int64) error {
	refreshProcs()
	s.mu.Lock()
	w := s.takeOrQueueLocked(n)
	s.mu.Unlock()
	if w == nil {
		return nil
	}
	for {
		select {
		case <-w.Woken():
			s.mu.Lock()
			got := w.Granted || s.retryLocked(w)
			if got {
				s.q.Recycle(w)
			}
			s.mu.Unlock()
			if got {
				return nil
			}
		case <-ctx.Done():
			return s.cancel(ctx, w)
		}
	}
}

// takeOrQueueLocked, with s.mu held, takes n permits if it may, or queues a
// waiter for them at the tail. It returns the waiter, or nil if it took the
// permits.
func (s *Semaphore) takeOrQueueLocked(n int64) *waitq.Waiter {
	for {
		old := s.state.Load()
		if old&starving == 0 && free(old) >= n {
			if s.state.CompareAndSwap(old, old-uint64(n)<<permitShift) {
				return nil
			}
			continue
		}
		if s.state.CompareAndSwap(old, old|waiting) {
			break
		}
	}
	w := s.q.PushBack(n)
	w.Since = s.nanotime()
	return w
}

// retryLocked, with s.mu held, is the turn of w, woken in normal mode while
// at the head of the queue: it clears the woken flag and takes the permits
// if they are still free, leaving the queue, and reports whether it did. A
// waiter that lost to a barging goroutine stays where it was, at the front
// of the queue. Either way it passes on the wake-up it consumed.
func (s *Semaphore) retryLocked(w *waitq.Waiter) bool {
	if s.wokenW != w {
		return false // a wake-up it no longer needs; keep waiting
	}
	s.wokenW = nil
	for {
		old := s.state.Load()
		new := old &^ woken
		took := old&starving == 0 && free(old) >= w.N
		if took {
			new -= uint64(w.N) << permitShift
			if s.q.Len() == 1 {
				new &^= waiting
			}
		}
		if s.state.CompareAndSwap(old, new) {
			if took {
				s.q.Remove(w)
			}
			s.dispatchLocked()
			return took
		}
	}
}

// cancel takes w out of the semaphore after ctx is done while it waits,
// leaving the semaphore as if it had never asked, and returns ctx.Err().
func (s *Semaphore) cancel(ctx context.Context, w *waitq.Waiter) error {
	s.mu.Lock()
	if w.Granted {
		// Permits were handed to w as its context ended: hand them on.
		s.state.Add(uint64(w.N) << permitShift)
	} else {
		clear := uint64(0)
		if s.wokenW == w {
			s.wokenW = nil
			clear |= woken
		}
		s.q.Remove(w)
		if s.q.Len() == 0 {
			clear |= waiting | starving
		}
		s.state.And(^clear)
	}
	s.q.Recycle(w)
	s.dispatchLocked()
	s.mu.Unlock()
	return ctx.Err()
}

// dispatchLocked, with s.mu held, serves the queue: in starvation mode it
// hands permits to the head; in normal mode it wakes the head if its request
// fits and nobody is woken already, and switches to starvation mode if the
// head has waited too long and either does not fit or was woken and has not
// taken its permits yet.
func (s *Semaphore) dispatchLocked() {
	for {
		old := s.state.Load()
		if old&starving != 0 {
			s.handoffLocked()
			return
		}
		if old&waiting == 0 {
			return
		}
		w := s.q.Front()
		if old&woken != 0 || free(old) < w.N {
			if s.nanotime()-w.Since > int64(starvationThreshold) {
				s.state.Or(starving)
				s.handoffLocked()
			}
			return
		}
		if s.state.CompareAndSwap(old, old|woken) {
			s.wokenW = w
			w.Wake()
			return
		}
	}
}

// handoffLocked, with s.mu held and the semaphore starving, hands free
// permits to the waiters at the head of the queue, in order, while their
// requests fit. It leaves starvation mode when the queue empties or a
// waiter is served that waited less than starvationThreshold, and then
// serves the queue in normal mode.
func (s *Semaphore) handoffLocked() {
	for {
		w := s.q.Front()
		if w == nil {
			s.state.And(^uint64(waiting | starving))
			return
		}
		last := s.q.Len() == 1
		young := s.nanotime()-w.Since < int64(starvationThreshold)
		for {
			old := s.state.Load()
			if free(old) < w.N {
				return
			}
			new := old - uint64(w.N)<<permitShift
			if last {
				new &^= waiting
			}
			if last || young {
				new &^= starving
			}
			if s.wokenW == w {
				new &^= woken
			}
			if s.state.CompareAndSwap(old, new) {
				break
			}
		}
		if s.wokenW == w {
			s.wokenW = nil
		}
		s.q.Remove(w)
		w.Granted = true
		w.Wake()
		if last || young {
			s.dispatchLocked()
			return
		}
	}
}

// nanotime is the monotonic time since the semaphore was made.
func (s *Semaphore) nanotime() int64 { return int64(time.Since(s.epoch)) }

// Spinning.

// procs caches runtime.GOMAXPROCS(0), which takes a runtime lock. It is
// refreshed each time a goroutine parks, a path that costs far more.
var procs atomic.Int32

func init() { refreshProcs() }

func refreshProcs() { procs.Store(int32(runtime.GOMAXPROCS(0))) }

// The spin budget: a spin phase runs at most 2*average+spinMin rounds,
// never more than spinMax, where average is the running average of the
// rounds that successful phases needed. A round is a busy loop of spinIters
// steps (like the runtime's procyield(30) in sync.Mutex), about 15ns on the
// measuring machine, so a phase lasts 60-250ns: less than parking. They are
// variables only so that BenchmarkSpin can compare strategies; nothing else
// changes them.
var (
	spinMin   int32 = 4
	spinMax   int32 = 16
	spinYield       = false // runtime.Gosched between rounds instead of the busy loop
	spinIters       = 30
	spinAdapt       = true
)

// spin tries to take n permits for a bounded number of rounds, pausing
// between tries. It reports whether it took them. It returns false early if
// ctx is done, if the semaphore starves or if spinning cannot help.
func (s *Semaphore) spin(ctx context.Context, n int64) bool {
	if procs.Load() <= 1 {
		return false
	}
	avg := s.spins.Load() // rounds, in sixteenths
	limit := spinMin
	if spinAdapt {
		limit = min(2*avg/16+spinMin, spinMax)
	}
	done := ctx.Done()
	for i := int32(0); i < limit; i++ {
		old := s.state.Load()
		if old&starving != 0 {
			break
		}
		if free(old) >= n && s.state.CompareAndSwap(old, old-uint64(n)<<permitShift) {
			s.adapt(avg, avg+(i*16-avg)/8)
			return true
		}
		if spinHook != nil {
			spinHook()
		}
		if done != nil {
			select {
			case <-done:
				return false
			default:
			}
		}
		pause()
	}
	s.adapt(avg, avg-avg/8)
	return false
}

var pauseSink atomic.Int32

func pause() {
	if spinYield {
		runtime.Gosched()
		return
	}
	x := int32(0)
	for i := range spinIters {
		x += int32(i)
	}
	if x == -1 {
		pauseSink.Store(x)
	}
}

// spinHook, when set by a test, runs at each spin round.
var spinHook func()

// adapt records the new average spin count.
func (s *Semaphore) adapt(avg, next int32) {
	if next != avg {
		s.spins.Store(next)
	}
}
