// Package condsem is the textbook semaphore: a count of held permits guarded
// by a sync.Mutex, with waiters parked on a sync.Cond. It is the clearest
// strategy to read and the one with the most instructive failure modes, so
// it comes in two variants that differ only in who may take free permits:
// [New] builds the plain one, [NewFair] a first-come, first-served one.
//
// # Design of the plain variant
//
// Acquire(n) takes the mutex and, while fewer than n permits are free, waits
// on the condition variable; once they are free it adds n to the count.
// Release(n) subtracts n and, if anyone waits, calls Broadcast. That is the
// whole algorithm; everything below is about what it does and does not
// promise.
//
// Why Broadcast and not Signal: requests have weights, so the one waiter
// Signal would wake may not fit in what was freed while another that fits
// sleeps on, a lost wake-up. Waking everyone is the only choice that is
// always correct when the condition differs from waiter to waiter.
//
// The thundering herd: Broadcast wakes every waiter on every Release. Each
// one takes the mutex in turn, rechecks the count, and most go back to
// sleep, so serving one waiter costs work proportional to the number of
// waiters, and the woken goroutines pile onto the mutex that everyone
// needs. How much of that is paid depends on who gets the permit. Here the
// releasing goroutine usually takes it straight back (it barges, see
// below), and a woken waiter leaves the wait list until it runs, so the
// scheduler throttles the herd; in the fair variant every permit goes to a
// sleeping waiter, and the whole herd runs on every hand-off.
// BenchmarkHerd measures both.
//
// Arrival order is not honoured. Woken waiters race for the mutex in
// whatever order the scheduler runs them, and a newcomer, an Acquire on its
// fast path or a TryAcquire, takes free permits before any woken waiter gets
// the mutex back: it barges. This is what makes the plain variant fast when
// it is busy (a goroutine that releases and reacquires keeps running instead
// of handing off to a sleeping one) and what makes it unfair.
//
// Large requests can starve. Acquire(n) needs n permits free at the same
// instant. If small requests keep cycling so that at every moment some
// permit is held, that instant never comes and a waiting Acquire(size) waits
// forever while everyone else makes progress. The fair variant exists to
// show the fix and its price.
//
// Cancellation: sync.Cond has none, so a waiter whose context can be done
// registers a context.AfterFunc callback that broadcasts, and stops it
// before returning. Every time a waiter wakes it looks at its context before
// it looks at the permits, under the mutex: a cancellation that came before
// the Release that freed them wins, and a waiter that took its permits has
// them for good. The callback takes the mutex first: otherwise its
// Broadcast could fall between a waiter's check of its context and its
// Wait, find nobody to wake, and be lost. A canceled waiter holds nothing
// and leaves the count untouched, so the plain variant needs no wake-up on
// the way out: whatever Broadcast woke it woke every other waiter too, so it
// swallowed nobody's wake-up, which is exactly the trap a Signal-based
// semaphore falls into.
//
// Resize, Close, observation and NewAvailable (issue 17) cost the fast path
// nothing: it compares the permits held with a limit field it already read
// as the size. The limit is the size, or zero once the semaphore is closed,
// so a closed semaphore has no free permit and every Acquire goes to wait,
// which looks at the closed flag and the size under the mutex first. A
// shrink below the permits held leaves fewer than none free until enough
// come back; Resize and Close broadcast, so that waiters that now fit, that
// are now larger than the size, or that must fail, find out. Only an Acquire
// that waits loads the function installed by OnWait, and with none
// installed nothing reads the clock.
//
// Guarantees beyond the contract: none. semtest runs with an empty
// Guarantees, and the package's tests show the barging and the starvation.
//
// # Design of the fair variant
//
// See [Fair].
package condsem

import (
	"context"

	"github.com/semacat/sem/internal/check"
)

const pkg = "condsem"

// Semaphore is the plain sync.Cond semaphore. It implements sem.Semaphore.
// It makes no promise about the order in which waiters are served, and a
// large request may wait forever while small ones keep cycling. It also
// implements sem.Resizer, sem.Closer and sem.Observer. The zero value is not
// usable; call New or NewAvailable.
type Semaphore struct {
	core         // cond holds the waiters for free permits
	wanted int64 // permits asked for by the Acquire calls in wait

	// waiters counts the Acquire calls in wait. Release skips Broadcast
	// when it is zero: Broadcast with nobody waiting is cheap but not free
	// (a call into the runtime and atomic loads), a cost that
	// BenchmarkSemaphore/uncontended in benchmarks shows.
	waiters int
}

// New returns a plain semaphore with size permits, all free. It panics if
// size is less than 1.
func New(size int64) *Semaphore {
	check.Size(pkg, size)
	return newPlain(size, size)
}

// NewAvailable returns a plain semaphore with size permits of which only
// available are free: it starts as if size-available permits were held, so
// Release may give back that many more than were acquired. NewAvailable(1,
// 0) is a signalling semaphore. It panics if size is less than 1 or
// available is not between 0 and size.
func NewAvailable(size, available int64) *Semaphore {
	check.Available(pkg, "NewAvailable", size, available)
	return newPlain(size, available)
}

func newPlain(size, available int64) *Semaphore {
	s := &Semaphore{}
	s.init(size, available)
	return s
}

// Available returns the number of permits free at this instant, negative
// while a shrink has left more permits held than the size. It is a snapshot
// for monitoring and teaching, stale as soon as it returns.
func (s *Semaphore) Available() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.size.Load() - s.cur
}

// Acquire takes n permits, blocking until they are all free at once or ctx
// is done. Waiters are served in no particular order, and newcomers may
// take permits ahead of them.
//
// On success it returns nil. If ctx is already done it returns ctx.Err()
// without acquiring, even when permits are free; if ctx is done while it
// waits, it returns ctx.Err() and the semaphore is as if the call had never
// happened. If n exceeds the size it returns at once an error wrapping
// sem.ErrExceedsSize, as it does if a Resize makes the size smaller than n
// while it waits. Once the semaphore is closed it returns an error wrapping
// sem.ErrClosed. Acquire(ctx, 0) returns ctx.Err() without blocking, or
// that error once closed. It panics if n < 0.
func (s *Semaphore) Acquire(ctx context.Context, n int64) error {
	check.Weight(pkg, "Acquire", n)
	if size := s.size.Load(); n > size {
		return check.ExceedsSize(pkg, n, size)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if n == 0 {
		return s.zeroWeight()
	}
	s.mu.Lock()
	if s.limit-s.cur >= n {
		s.cur += n
		s.mu.Unlock()
		return nil
	}
	return s.hook.wait(ctx, n, s.wait)
}

// wait parks until n permits are free and takes them, or until ctx is
// done, the semaphore is closed, or n exceeds the size. It is called with
// s.mu held and returns with it released.
func (s *Semaphore) wait(ctx context.Context, n int64) error {
	stop := wakeOnDone(ctx, &s.cond)
	defer stop()
	s.waiters++
	s.wanted += n
	defer func() {
		s.waiters--
		s.wanted -= n
		s.mu.Unlock()
	}()
	for {
		// The context first: a cancellation that came before the
		// permits were free wins, even if they are free now.
		if err := failure(ctx, n, s.size.Load(), s.closed); err != nil {
			return err
		}
		if s.limit-s.cur >= n {
			s.cur += n
			return nil
		}
		s.cond.Wait()
	}
}

// failure returns the error a waiting Acquire(ctx, n) must return now, in
// this order: ctx.Err(), the semaphore closed, n above the size.
func failure(ctx context.Context, n, size int64, closed bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if closed {
		return check.Closed(pkg, n)
	}
	if n > size {
		return check.ExceedsSize(pkg, n, size)
	}
	return nil
}

// TryAcquire takes n permits only if they are free at once, and reports
// whether it did. It takes all n or none. It succeeds whenever n permits are
// free, even while an Acquire waits for more. TryAcquire(0) reports true
// until the semaphore is closed. It panics if n < 0.
func (s *Semaphore) TryAcquire(n int64) bool {
	check.Weight(pkg, "TryAcquire", n)
	if n == 0 {
		return s.zeroWeight() == nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.limit-s.cur < n {
		return false
	}
	s.cur += n
	return true
}

// Release returns n permits and wakes every waiter, each of which rechecks
// whether its request now fits. It panics if n is negative or more than the
// permits held; the check happens before any permit is returned.
func (s *Semaphore) Release(n int64) {
	check.Weight(pkg, "Release", n)
	if n == 0 {
		return
	}
	s.mu.Lock()
	if n > s.cur {
		held := s.cur
		s.mu.Unlock()
		check.OverRelease(pkg, n, held)
	}
	s.cur -= n
	if s.waiters > 0 {
		s.cond.Broadcast()
	}
	s.mu.Unlock()
}
