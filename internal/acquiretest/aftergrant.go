package acquiretest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/semacat/sem"
)

// NewAvailable builds a strategy's semaphore with size permits of which
// available are free.
type NewAvailable func(size, available int64) sem.Semaphore

// CheckCancelAfterGrant runs, in a testing/synctest bubble, the sequence in
// which a waiter is granted its permits, its context is then canceled, and
// another goroutine releases those permits before the waiter has returned:
// NewAvailable(1, 0); Acquire parks; Release(1); cancel(); Release(1) from
// another goroutine. Acquire may return nil, or ctx.Err() only if nothing
// was granted (then the second Release panics as an over-release); it must
// never panic.
//
// It runs the sequence in two orders. In WaiterFirst the waiter runs after
// the first Release before anything else does, and the cancellation and the
// second Release happen inside its way out: its context runs them the
// first time its Done method is called after the grant, which is where a
// waiter that gives its permits back looks at its context (a strategy that
// decides at the grant need not call it there; then they happen once the
// waiter has returned). In CancelFirst they follow the first Release at
// once, and the scheduler decides whether the waiter has run.
//
// grantsOnRelease says that the strategy grants the permits inside the
// first Release, so Acquire must return nil; otherwise the waiter takes
// them when it runs, and may find its context done first.
func CheckCancelAfterGrant(t *testing.T, newAvailable NewAvailable, grantsOnRelease bool) {
	t.Helper()
	for _, waiterFirst := range []bool{true, false} {
		name := map[bool]string{true: "WaiterFirst", false: "CancelFirst"}[waiterFirst]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := startAfterGrant(newAvailable)
				synctest.Wait()
				if r.call.Returned() {
					t.Fatalf("Acquire(1) on NewAvailable(1, 0) returned %v without waiting", r.call.Err)
				}
				r.hook.arm(r.cancelAndRelease)
				r.s.Release(1)
				if waiterFirst {
					synctest.Wait()
				}
				r.hook.fire()
				synctest.Wait()
				if err := r.check(grantsOnRelease); err != nil {
					t.Error(err)
				}
			})
		})
	}
}

// StressCancelAfterGrant repeats the sequence of CheckCancelAfterGrant
// trials times at GOMAXPROCS 1 and 2, with nothing to order the waiter's
// way out and the other goroutines but the scheduler, as a probe of the
// contract would. Each trial's bubble only makes sure the waiter parked
// before the first Release.
func StressCancelAfterGrant(t *testing.T, newAvailable NewAvailable, grantsOnRelease bool, trials int) {
	t.Helper()
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			outcomes := map[string]int{}
			for trial := range trials {
				synctest.Test(t, func(t *testing.T) {
					r := startAfterGrant(newAvailable)
					synctest.Wait()
					r.s.Release(1)
					r.cancelAndRelease()
					synctest.Wait()
					if err := r.check(grantsOnRelease); err != nil {
						t.Fatalf("trial %d: %v", trial, err)
					}
					outcomes[r.outcome()]++
				})
			}
			t.Logf("%d trials: %v", trials, outcomes)
		})
	}
}

// afterGrant is one run of the sequence.
type afterGrant struct {
	s        sem.Semaphore
	call     *Call
	hook     *doneHook
	panicked any // what the waiter's Acquire panicked with, if it did

	released chan struct{} // closed when the second Release has returned
	overErr  any           // what the second Release panicked with, if it did
}

// startAfterGrant makes the semaphore and starts the waiter on a context
// whose Done method may run a hook.
func startAfterGrant(newAvailable NewAvailable) *afterGrant {
	r := &afterGrant{s: newAvailable(1, 0), hook: &doneHook{}, released: make(chan struct{})}
	r.call = Prepare(1)
	r.hook.Context = r.call.ctx
	r.call.ctx = r.hook
	go func() {
		defer close(r.call.done)
		defer func() { r.panicked = recover() }()
		r.call.Err = r.s.Acquire(r.call.ctx, 1)
	}()
	return r
}

// cancelAndRelease cancels the waiter's context, then releases one permit
// from another goroutine and waits for that Release to return.
func (r *afterGrant) cancelAndRelease() {
	r.call.Cancel()
	go func() {
		defer close(r.released)
		defer func() { r.overErr = recover() }()
		r.s.Release(1)
	}()
	<-r.released
}

// check returns what is wrong with the run's outcome, once every goroutine
// of the run has returned, or nil.
func (r *afterGrant) check(grantsOnRelease bool) error {
	if !r.call.Returned() {
		return errors.New("the Acquire did not return after its permits were granted and released")
	}
	if r.panicked != nil {
		return fmt.Errorf("the Acquire panicked after its permits were granted, its context canceled and the permits released by another goroutine: %v", r.panicked)
	}
	switch {
	case r.call.Err == nil && r.overErr != nil:
		return fmt.Errorf("the Acquire returned nil, but the Release of the permits it was granted panicked: %v", r.overErr)
	case r.call.Err != nil && !errors.Is(r.call.Err, context.Canceled):
		return fmt.Errorf("the Acquire returned %v; want nil or context.Canceled", r.call.Err)
	case r.call.Err != nil && grantsOnRelease:
		return fmt.Errorf("the Acquire returned %v after Release(1) granted its permits; a grant is final", r.call.Err)
	case r.call.Err != nil && r.overErr == nil:
		return fmt.Errorf("the Acquire returned %v, holding nothing, yet a later Release(1) was accepted: a permit was counted twice", r.call.Err)
	case r.overErr != nil && !strings.Contains(fmt.Sprint(r.overErr), "released more than held"):
		return fmt.Errorf("the second Release panicked with %v; want an over-release", r.overErr)
	}
	return nothingHeld(r.s)
}

// outcome names the run's outcome, for the stress test's log.
func (r *afterGrant) outcome() string {
	if r.call.Err == nil {
		return "granted"
	}
	return "canceled first"
}

// nothingHeld returns an error unless s, of size 1, has its one permit free
// and no more: one TryAcquire succeeds, a second fails.
func nothingHeld(s sem.Semaphore) error {
	if !s.TryAcquire(1) {
		return errors.New("afterwards, with nothing held, TryAcquire(1) failed: a permit is lost")
	}
	defer s.Release(1)
	if s.TryAcquire(1) {
		s.Release(1)
		return errors.New("afterwards, with nothing held, two TryAcquire(1) succeeded on a semaphore of size 1")
	}
	return nil
}

// doneHook is a context whose Done method runs a function once, the first
// time it is called after arm.
type doneHook struct {
	context.Context
	mu sync.Mutex
	f  func()
}

// arm makes the next Done call, or fire, run f.
func (h *doneHook) arm(f func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.f = f
}

// fire runs the armed function unless it already ran.
func (h *doneHook) fire() {
	h.mu.Lock()
	f := h.f
	h.f = nil
	h.mu.Unlock()
	if f != nil {
		f()
	}
}

// Done runs the armed function, if any, then returns the context's Done.
func (h *doneHook) Done() <-chan struct{} {
	h.fire()
	return h.Context.Done()
}
