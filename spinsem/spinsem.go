// Package spinsem is a weighted semaphore built like sync.Mutex: permits live
// in one atomic word, a goroutine that finds too few spins briefly before it
// parks, and a starvation mode hands permits directly to a waiter that has
// waited too long.
//
// # Design
//
// The state word holds the number of free permits above three flags:
// starving (permits go to the head of the queue, nobody else may take them),
// woken (a waiter has been woken and is on its way to try again, so a Release
// need not wake another) and waiting (the wait queue is not empty).
//
// Fast path. Acquire takes its permits with one compare-and-swap when enough
// are free and the semaphore is not starving, whether or not goroutines are
// parked: a running goroutine is allowed to barge past sleeping ones, which
// is what makes the semaphore fast under contention. Release adds its
// permits with one compare-and-swap and takes the slow path only when a
// parked goroutine may need waking: the queue is not empty and nobody has
// been woken already, or the semaphore is starving.
//
// Spin. When the permits are not free, Acquire spins before it parks, on
// the bet that a holder will release within a few hundred nanoseconds, much
// less than the cost of parking and being woken. It spins only where this
// can pay off: with more than one P, and not in starvation mode (where
// permits are handed to parked waiters, so spinning could never win). The
// number of rounds adapts, as glibc's adaptive mutex does: each spin phase
// records how many rounds it needed (or its whole budget, if it failed) in a
// running average, and the next phase may spin twice that average plus a
// minimum, up to a cap. A round checks the context, then yields the
// processor with runtime.Gosched; yielding measured faster than a busy loop
// on a machine with fewer processors than goroutines, because it lets the
// holder run. See "Measurements" below. Spinning never happens while
// holding the internal mutex, and it stops at once, acquiring nothing, when
// the context is done.
//
// Park. A goroutine that still cannot acquire takes the internal mutex,
// tries once more, and otherwise sets the waiting flag in the same
// compare-and-swap that confirmed the permits were short (so a Release that
// follows is bound to see it), queues itself at the tail of a FIFO queue and
// blocks on its own wake channel or on ctx.Done(). Parking and waking use
// channels, never the mutex, so testing/synctest sees parked goroutines as
// durably blocked.
//
// Normal mode. Release wakes the head of the queue only if its request fits
// in the free permits, and sets woken; Releases that follow leave the queue
// alone until the woken goroutine has tried again. The woken goroutine
// competes with arriving ones and may lose: then it goes back to the front of
// the queue, keeping its arrival time. Whoever clears the woken flag (the
// woken goroutine, whether it won, lost or gave up) looks at the queue again
// and wakes the next head if it fits, so no wake-up is lost. A head that does
// not fit blocks the waiters behind it, but not arriving goroutines.
//
// Starvation mode. Barging can starve a waiter forever, especially a large
// request that needs many permits free at once while small requests keep
// cycling. When the head of the queue has waited more than 1ms (measured
// with the monotonic clock, which testing/synctest fakes) and finds the
// permits short, because it was woken and lost or because a Release found it
// does not fit, the semaphore switches to starvation mode. In that mode
// arriving goroutines neither take permits nor spin (Acquire queues at the
// tail, TryAcquire fails), and freed permits accumulate until they are
// handed, under the mutex, directly to the head of the queue: its permits
// are taken for it, Granted is set and it is woken already holding them.
// Waiters are served strictly in queue order, so a large request is never
// passed. The semaphore returns to normal mode when the queue becomes empty,
// or when a handoff goes to a waiter that had waited less than 1ms (the
// rule of sync.Mutex: the waiters behind it arrived even later, so nobody is
// starving any more, and staying in the slow, strictly ordered mode would
// only cost throughput).
//
// Fairness trade-off. Normal mode gives throughput: a goroutine that is
// running takes permits without a context switch, and may take them many
// times in a row while others sleep, so there is no FIFO order and TryAcquire
// barges past waiters. Starvation mode bounds the tail: no waiter waits much
// more than 1ms beyond the time it takes for the permits it needs to be
// released, whatever its weight.
//
// Cancellation. A done context is checked before anything is taken, between
// spin rounds, and while parked. A parked waiter whose context is done
// leaves the queue (waking whoever may now proceed), and the semaphore is as
// if it had never asked. A waiter to which permits were handed at the moment
// its context was done returns nil holding them if it saw the handoff first,
// or gives them back (handing them on) and returns the context's error.
//
// # Measurements
//
// The spin bound (spinMin, spinMax) and the choice of runtime.Gosched over a
// busy loop come from BenchmarkSpin in spin_test.go (2 cores shared with
// other jobs, medians of 8 runs, ns per Acquire+Release through the
// sem.Semaphore interface):
//
//	scenario                           no spin   busy 30x4   Gosched 4   Gosched adaptive
//	16 goroutines, size 1              see spin_test.go for the numbers this was chosen from
//
// The table in spin_test.go is authoritative; it is repeated in the package
// README under docs/.
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

// The state word: free permits above three flags.
const (
	starving    = 1 << iota // handoff mode: permits go to the head of the queue only
	woken                   // a woken waiter will try again; Release need not wake another
	waiting                 // the queue is not empty
	permitShift = iota      // free permits are state >> permitShift
)

// MaxSize is the largest size a semaphore can have: the free permits share
// one word with three flags.
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

	mu sync.Mutex  // guards q, and every change to the waiting and starving flags
	q  waitq.Queue // parked waiters; Since is the arrival time since epoch
}

// New returns a semaphore with size permits, all free. It panics if size is
// less than 1 or more than MaxSize.
func New(size int64) *Semaphore {
	check.Size(pkg, size)
	if size > MaxSize {
		tooLarge(size)
	}
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
		if s.state.CompareAndSwap(old, new) {
			if new&starving != 0 || new&(waiting|woken) == waiting {
				s.releaseSlow()
			}
			return
		}
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
	w := s.takeOrQueueLocked(n, -1)
	s.mu.Unlock()
	for w != nil {
		select {
		case <-w.Woken():
			s.mu.Lock()
			if w.Granted {
				s.q.Recycle(w)
				s.mu.Unlock()
				return nil
			}
			// Woken in normal mode: compete again, from the front.
			since := w.Since
			s.q.Recycle(w)
			w = s.takeOrQueueLocked(n, since)
			s.mu.Unlock()
		case <-ctx.Done():
			return s.cancel(ctx, w)
		}
	}
	return nil
}

// takeOrQueueLocked, with s.mu held, takes n permits if it may, or queues a
// waiter for them. since < 0 marks a new arrival, queued at the tail;
// otherwise the caller is a waiter that was woken and had arrived at since:
// it clears the woken flag, and queues at the front if it loses. It returns
// the queued waiter, or nil if it took the permits.
func (s *Semaphore) takeOrQueueLocked(n, since int64) *waitq.Waiter {
	retry := since >= 0
	for {
		old := s.state.Load()
		new := old
		if retry {
			new &^= woken
		}
		if old&starving == 0 && free(old) >= n {
			new -= uint64(n) << permitShift
			if s.state.CompareAndSwap(old, new) {
				if retry && new&waiting != 0 && free(new) > 0 {
					s.dispatchLocked() // pass on the wake-up we consumed
				}
				return nil
			}
			continue
		}
		if s.state.CompareAndSwap(old, new|waiting) {
			break
		}
	}
	var w *waitq.Waiter
	if retry {
		w = s.q.PushFront(n)
		w.Since = since
		if s.nanotime()-since > int64(starvationThreshold) {
			s.state.Or(starving)
		}
	} else {
		w = s.q.PushBack(n)
		w.Since = s.nanotime()
	}
	if s.state.Load()&starving != 0 {
		s.handoffLocked()
	}
	return w
}

// cancel takes w out of the semaphore after ctx is done while it
// waits, leaving the semaphore as if it had never asked, and returns
// ctx.Err().
func (s *Semaphore) cancel(ctx context.Context, w *waitq.Waiter) error {
	s.mu.Lock()
	switch {
	case w.Granted:
		// Permits were handed to w as its context ended: hand them on.
		s.state.Add(uint64(w.N) << permitShift)
	case w.Queued():
		s.q.Remove(w)
		if s.q.Len() == 0 {
			s.state.And(^uint64(waiting | starving))
		}
	default:
		// Woken in normal mode, but ctx won the race: give up the wake-up.
		s.state.And(^uint64(woken))
	}
	s.q.Recycle(w)
	s.dispatchLocked()
	s.mu.Unlock()
	return ctx.Err()
}

// dispatchLocked, with s.mu held, serves the queue: in starvation mode it
// hands permits to the head; in normal mode it wakes the head if its request
// fits and nobody is woken already, and switches to starvation mode if the
// head does not fit and has waited too long.
func (s *Semaphore) dispatchLocked() {
	for {
		old := s.state.Load()
		if old&starving != 0 {
			s.handoffLocked()
			return
		}
		if old&(waiting|woken) != waiting {
			return
		}
		w := s.q.Front()
		if free(old) < w.N {
			if s.nanotime()-w.Since > int64(starvationThreshold) {
				s.state.Or(starving)
				s.handoffLocked()
			}
			return
		}
		new := old | woken
		if s.q.Len() == 1 {
			new &^= waiting
		}
		if s.state.CompareAndSwap(old, new) {
			s.q.Remove(w)
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
			if s.state.CompareAndSwap(old, new) {
				break
			}
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

// The spin budget: a phase spins at most 2*average+spinMin rounds, and never
// more than spinMax.
const (
	spinMin = 4
	spinMax = 64
)

// spin tries to take n permits for a bounded number of rounds, yielding the
// processor between tries. It reports whether it took them. It returns false
// early if ctx is done, if the semaphore starves or if spinning cannot help.
func (s *Semaphore) spin(ctx context.Context, n int64) bool {
	if procs.Load() <= 1 {
		return false
	}
	avg := s.spins.Load()
	limit := min(2*avg+spinMin, spinMax)
	done := ctx.Done()
	i := int32(0)
	for ; i < limit; i++ {
		old := s.state.Load()
		if old&starving != 0 {
			break
		}
		if free(old) >= n && s.state.CompareAndSwap(old, old-uint64(n)<<permitShift) {
			s.adapt(avg, i)
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
		runtime.Gosched()
	}
	s.adapt(avg, i)
	return false
}

// spinHook, when set by a test, runs at each spin round.
var spinHook func()

// adapt moves the average spin count an eighth of the way toward used.
func (s *Semaphore) adapt(avg, used int32) {
	if d := (used - avg) / 8; d != 0 {
		s.spins.Store(avg + d)
	}
}

//go:noinline
func tooLarge(size int64) {
	panic("spinsem: New(" + itoa(size) + "): size must be at most " + itoa(MaxSize))
}

func itoa(v int64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return string(b[i:])
		}
	}
}
