package model

import (
	"fmt"
	"testing/synctest"
)

// epilogue ends every program: it cancels every waiter, releases every
// permit, and checks that all permits are free and every call returned.
func (r *runner) epilogue() {
	r.stepNo = 0
	var cancels step
	for _, w := range r.queue() {
		if w.ctx == ctxCancelable || w.ctx == ctxTimeout {
			cancels = append(cancels, op{kind: opCancel, name: w.name})
		}
	}
	if len(cancels) > 0 {
		r.cur = "cancel every waiter: " + cancels.String()
		if !r.run(cancels) {
			return
		}
	}
	for len(r.holders) > 0 {
		var releases step
		for _, h := range r.holders {
			releases = append(releases, op{kind: opRelease, name: h, n: r.held[h]})
		}
		r.cur = "release every permit: " + releases.String()
		if !r.run(releases) {
			return
		}
	}
	r.cur = "all calls returned and released"
	if q := r.queue(); len(q) > 0 {
		r.failf("lost-wakeup", "%s still waiting with every permit free", names(q))
		return
	}
	r.checkAvailable()
	ok := false
	if msg, p := panics(func() { ok = r.s.TryAcquire(r.size) }); p {
		r.failf("try-panic", "TryAcquire(%d) panicked: %s", r.size, msg)
		return
	}
	if !ok {
		r.failf("leak", "TryAcquire(%d) failed once every call had returned and every permit had been released: permits were lost", r.size)
		return
	}
	if msg, p := panics(func() { r.s.Release(r.size) }); p {
		r.failf("release-panic", "Release(%d) after TryAcquire(%d) panicked: %s", r.size, r.size, msg)
	}
}

// unblock ends the program after a failure: it cancels every waiter, and
// for a semaphore that ignores cancellation, releases permits until every
// waiter has returned, so that the bubble never deadlocks. A waiter that
// stays blocked all the same is added to the report.
func (r *runner) unblock() {
	for _, w := range r.arrived {
		w.cancel()
	}
	if r.fail == nil || len(r.arrived) == 0 {
		return
	}
	synctest.Wait()
	released := map[*waiter]bool{}
	for range int(r.size) * (len(r.arrived) + 2) {
		progress := r.releaseAll(released)
		synctest.Wait()
		if !r.anyBlocked() {
			return
		}
		if !progress {
			if _, p := panics(func() { r.s.Release(1) }); p {
				break
			}
			synctest.Wait()
		}
	}
	var stuck []*waiter
	for _, w := range r.arrived {
		if !w.done.Load() {
			stuck = append(stuck, w)
		}
	}
	if len(stuck) > 0 {
		r.fail.Msg += fmt.Sprintf("; and %s stayed blocked after every context was canceled and every permit released", names(stuck))
	}
}

// releaseAll gives back what every holder holds, and what waiters that
// returned nil after the failure hold. It reports whether it released any.
func (r *runner) releaseAll(released map[*waiter]bool) bool {
	progress := len(r.holders) > 0
	for _, h := range r.holders {
		panics(func() { r.s.Release(r.held[h]) })
	}
	r.held, r.holders = map[string]int64{}, nil
	for _, w := range r.arrived {
		if w.done.Load() && w.err == nil && w.panic == nil && w.n > 0 && w.n <= r.size && !w.counted && !released[w] {
			released[w], progress = true, true
			panics(func() { r.s.Release(w.n) })
		}
	}
	return progress
}

func (r *runner) anyBlocked() bool {
	for _, w := range r.arrived {
		if !w.done.Load() {
			return true
		}
	}
	return false
}
