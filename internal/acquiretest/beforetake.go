package acquiretest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
)

// maxLooks bounds how many looks at its context CheckCancelBeforeTake
// expects an Acquire to make before it parks.
const maxLooks = 100

// CheckCancelBeforeTake checks that a cancellation wins over permits freed
// after it, wherever an Acquire looks at its context before it takes them.
//
// Each run, in a testing/synctest bubble, makes NewAvailable(1, 0) and
// calls Acquire(ctx, 1) with a context whose Err method, the k-th time it
// finds the context not done, cancels it and has another goroutine release
// the one permit before it returns: as if the Acquire were paused right
// after that look. The permit is freed after the cancellation, so Acquire
// must return ctx.Err() and leave the permit free. k runs from 1 until an
// Acquire parks without looking a k-th time; a strategy that never calls
// Err before it parks fails, since the check could reach none of its
// windows.
//
// The strategy's Release(1) of a permit nobody waits for must not take a
// lock that its Acquire holds while it calls Err with the context not done
// (the run would hang); condsem's mutex is one, and condsem has a hook
// before its lock instead.
func CheckCancelBeforeTake(t *testing.T, newAvailable NewAvailable) {
	t.Helper()
	for k := 1; k <= maxLooks; k++ {
		fired := false
		ok := t.Run(fmt.Sprintf("look=%d", k), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fired = cancelAfterLook(t, newAvailable, k)
			})
		})
		if !ok {
			return
		}
		if !fired {
			if k == 1 {
				t.Fatal("Acquire parked without calling its context's Err: the check reached no window")
			}
			t.Logf("the context canceled and the permit released right after each of the %d looks at the context before Acquire parked: Acquire returned the error each time, leaving the permit free", k-1)
			return
		}
	}
	t.Fatalf("Acquire looked at its context more than %d times without parking", maxLooks)
}

// cancelAfterLook runs one Acquire whose context is canceled, and the
// permit released, right after its k-th look at the context, and reports
// whether it made that look.
func cancelAfterLook(t *testing.T, newAvailable NewAvailable, k int) bool {
	s := newAvailable(1, 0)
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx := &ErrHook{Context: parent}
	ctx.Arm(k, func() {
		cancel()
		if p := releaseElsewhere(s.Release); p != nil {
			t.Errorf("Release(1) of the permit held since NewAvailable(1, 0) panicked: %v", p)
		}
	})
	call := &Call{N: 1, ctx: ctx, cancel: cancel, done: make(chan struct{})}
	var panicked any
	go func() {
		defer close(call.done)
		defer func() { panicked = recover() }()
		call.Err = s.Acquire(call.ctx, 1)
	}()
	synctest.Wait()
	if !ctx.Fired() {
		if call.Returned() {
			t.Errorf("Acquire(1) on NewAvailable(1, 0) returned %v (panic %v) without waiting", call.Err, panicked)
			return false
		}
		cancel()
		synctest.Wait()
		s.Release(1)
		return false
	}
	switch {
	case !call.Returned():
		t.Error("Acquire still waits after its context was canceled")
		return true
	case panicked != nil:
		t.Errorf("Acquire panicked: %v", panicked)
	case !errors.Is(call.Err, context.Canceled):
		t.Errorf("Acquire returned %v for a permit freed after its context was canceled; want context.Canceled", call.Err)
	}
	if err := nothingHeld(s); err != nil {
		t.Error(err)
	}
	return true
}

// releaseElsewhere runs release(1) in a goroutine of its own, waits for it
// to return, and returns what it panicked with, if it did.
func releaseElsewhere(release func(int64)) (panicked any) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { panicked = recover() }()
		release(1)
	}()
	<-done
	return panicked
}

// ErrHook is a context whose Err method, once armed, runs a function the
// k-th time it finds the context not done, before it returns nil: as if
// the goroutine that called Err were paused right after it looked. The
// function may cancel the context; that Err call still reports it not
// done.
type ErrHook struct {
	context.Context

	mu    sync.Mutex
	looks int // looks still to come before run, once armed
	run   func()
	fired bool
}

// Arm makes f run at the k-th call of Err from now that finds the context
// not done.
func (h *ErrHook) Arm(k int, f func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.looks, h.run = k, f
}

// Err returns the context's error, after running the armed function if
// this is the look it waits for.
func (h *ErrHook) Err() error {
	err := h.Context.Err()
	if err != nil {
		return err
	}
	h.mu.Lock()
	var run func()
	if h.run != nil {
		h.looks--
		if h.looks == 0 {
			run, h.run, h.fired = h.run, nil, true
		}
	}
	h.mu.Unlock()
	if run != nil {
		run()
	}
	return nil
}

// Fired reports whether the armed function has run.
func (h *ErrHook) Fired() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.fired
}
