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
// before returning. A waiter that takes its permits looks at its context
// once more on the way out: if it is done by then, the cancellation may have
// come before the Release that freed them, and it wins (go.dev/issue/63615):
// the waiter gives them back through Release, which wakes the others, and
// returns ctx.Err(). The callback takes the mutex first: otherwise its
// Broadcast could fall between a waiter's check of its context and its
// Wait, find nobody to wake, and be lost. A canceled waiter holds nothing
// and leaves the count untouched, so the plain variant needs no wake-up on
// the way out: whatever Broadcast woke it woke every other waiter too, so it
// swallowed nobody's wake-up, which is exactly the trap a Signal-based
// semaphore falls into.
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
	"sync"

	"github.com/semacat/sem/internal/check"
	"github.com/semacat/sem/internal/grant"
)

const pkg = "condsem"

// Semaphore is the plain sync.Cond semaphore. It implements sem.Semaphore.
// It makes no promise about the order in which waiters are served, and a
// large request may wait forever while small ones keep cycling. The zero
// value is not usable; call New.
type Semaphore struct {
	mu   sync.Mutex
	cond sync.Cond // waiters for free permits; cond.L is &mu
	size int64
	cur  int64 // permits held

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
	s := &Semaphore{size: size}
	s.cond.L = &s.mu
	return s
}

// Size returns the total number of permits.
func (s *Semaphore) Size() int64 { return s.size }

// Available returns the number of permits free at this instant. It is a
// snapshot for monitoring and teaching, stale as soon as it returns.
func (s *Semaphore) Available() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.size - s.cur
}

// Acquire takes n permits, blocking until they are all free at once or ctx
// is done. Waiters are served in no particular order, and newcomers may
// take permits ahead of them.
//
// On success it returns nil. If ctx is already done it returns ctx.Err()
// without acquiring, even when permits are free; if ctx is done while it
// waits, it returns ctx.Err() and the semaphore is as if the call had never
// happened. If n exceeds the size it returns at once an error wrapping
// sem.ErrExceedsSize. Acquire(ctx, 0) returns ctx.Err() without blocking.
// It panics if n < 0.
func (s *Semaphore) Acquire(ctx context.Context, n int64) error {
	check.Weight(pkg, "Acquire", n)
	if n > s.size {
		return check.ExceedsSize(pkg, n, s.size)
	}
	if err := ctx.Err(); err != nil || n == 0 {
		return err
	}
	s.mu.Lock()
	if s.size-s.cur >= n {
		s.cur += n
		s.mu.Unlock()
		return nil
	}
	if err := s.wait(ctx, n); err != nil {
		return err
	}
	return grant.Keep(ctx, s, n)
}

// wait parks until n permits are free and takes them, or until ctx is
// done. It is called with s.mu held and returns with it released.
func (s *Semaphore) wait(ctx context.Context, n int64) error {
	stop := wakeOnDone(ctx, &s.cond)
	defer stop()
	s.waiters++
	for s.size-s.cur < n {
		if err := ctx.Err(); err != nil {
			s.waiters--
			s.mu.Unlock()
			return err
		}
		s.cond.Wait()
	}
	s.waiters--
	s.cur += n
	s.mu.Unlock()
	return nil
}

// TryAcquire takes n permits only if they are free at once, and reports
// whether it did. It takes all n or none. It succeeds whenever n permits are
// free, even while an Acquire waits for more. TryAcquire(0) reports true. It
// panics if n < 0.
func (s *Semaphore) TryAcquire(n int64) bool {
	check.Weight(pkg, "TryAcquire", n)
	if n == 0 {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.size-s.cur < n {
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
