package model

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/semacat/sem"
)

// outcome is what became of a waiter by the end of a step.
type outcome int

const (
	waiting outcome = iota
	served          // Acquire returned nil
	failed          // Acquire returned an error
)

var outcomeNames = [...]string{"waiting", "served", "failed"}

// observe checks what the goroutines did during the step against the model,
// and brings the model up to date. before is the queue when the step began.
func (r *runner) observe(before []*waiter) {
	for _, w := range r.rec.immediate {
		if r.checkImmediate(w); r.fail != nil {
			return
		}
	}
	cand := append(slices.Clip(before), r.rec.started...)
	got := map[*waiter]outcome{}
	for _, w := range cand {
		switch {
		case !w.done.Load():
			got[w] = waiting
		case w.panic != nil:
			r.failf("acquire-panic", "%s: Acquire(ctx, %d) panicked: %v", w.name, w.n, w.panic)
			return
		case w.err == nil:
			got[w] = served
		default:
			got[w] = failed
		}
	}
	checks := []func([]*waiter, map[*waiter]outcome){
		r.checkReturns, r.checkSafety, r.checkTries, r.checkLiveness, r.checkUnitFIFO, r.checkFIFO,
	}
	for _, check := range checks {
		if check(cand, got); r.fail != nil {
			return
		}
	}
	for _, w := range cand {
		w.blocked = got[w] == waiting
	}
	r.checkAvailable()
}

// checkImmediate checks an Acquire that must return at once: a zero or
// impossible weight, or a context already done.
func (r *runner) checkImmediate(w *waiter) {
	kind, want := "done-context", "ctx.Err()"
	switch {
	case w.n > r.size:
		kind, want = "exceeds-size", "an error wrapping sem.ErrExceedsSize"
	case w.n == 0:
		kind = "zero-weight"
	}
	r.count("outcome/immediate/" + kind)
	ctxErr := w.context.Err()
	switch {
	case !w.done.Load():
		r.failf(kind, "%s: Acquire(ctx, %d) with ctx %s is still blocked; want it to return %s at once",
			w.name, w.n, ctxNames[w.ctx], want)
	case w.panic != nil:
		r.failf("acquire-panic", "%s: Acquire(ctx, %d) panicked: %v", w.name, w.n, w.panic)
	case w.n > r.size:
		if !errors.Is(w.err, sem.ErrExceedsSize) && (ctxErr == nil || !errors.Is(w.err, ctxErr)) {
			r.failf(kind, "%s: Acquire(ctx, %d) on size %d returned %v; want %s", w.name, w.n, r.size, w.err, want)
		}
	case !errors.Is(w.err, ctxErr) || (w.err == nil) != (ctxErr == nil):
		r.failf(kind, "%s: Acquire(ctx, %d) with ctx %s returned %v; want %v (ctx.Err()), acquiring nothing",
			w.name, w.n, ctxNames[w.ctx], w.err, ctxErr)
	}
}

// checkReturns checks each waiter's result against its context, and counts
// the permits of those served as held.
func (r *runner) checkReturns(cand []*waiter, got map[*waiter]outcome) {
	for _, w := range cand {
		raced := w.ctxDone && r.freedBefore(w)
		switch got[w] {
		case waiting:
			switch {
			case w.stolen:
				r.failf("lost-grant", "%s is still waiting, though another goroutine released the %d permits granted to it", w.name, w.n)
			case w.ctxDone:
				r.failf("ignores-cancel", "%s is still waiting though its context is done (%v); want Acquire to return ctx.Err()",
					w.name, w.context.Err())
			}
		case failed:
			if w.stolen {
				r.failf("gave-back-released", "%s: Acquire(ctx, %d) returned %v after its permits were granted and released by another goroutine; an error means it held none of them",
					w.name, w.n, w.err)
			}
			if !w.ctxDone {
				r.failf("spurious-error", "%s: Acquire(ctx, %d) returned %v while its context was not done; want it to wait",
					w.name, w.n, w.err)
			} else if !errors.Is(w.err, w.context.Err()) {
				r.failf("wrong-error", "%s: Acquire(ctx, %d) returned %v; want ctx.Err() = %v", w.name, w.n, w.err, w.context.Err())
			}
			if raced {
				r.count("outcome/canceled-after-release/error")
			}
			if errors.Is(w.err, context.DeadlineExceeded) {
				r.count("outcome/timed-out")
			}
		case served:
			if w.ctxDone && !raced {
				r.failf("cancel-first", "%s: Acquire(ctx, %d) returned nil, but its context was done (%v) before any permit was freed for it; a cancellation that comes first must win",
					w.name, w.n, w.context.Err())
			}
			if raced {
				r.count("outcome/canceled-after-release/nil")
			}
			w.counted = true
			if !w.stolen { // else another goroutine released its permits
				r.hold(w.name, w.n)
			}
		}
		if r.fail != nil {
			return
		}
	}
}

// freedBefore reports whether, in this step, permits may have become
// grantable to w before its context was done: a Release, or another waiter
// leaving, came first.
func (r *runner) freedBefore(w *waiter) bool {
	if w.doneAt.op < 0 {
		return false
	}
	for _, e := range r.rec.frees {
		if e.who != w && e.at.before(w.doneAt) {
			return true
		}
	}
	return false
}

// checkSafety checks that no more than size permits are held.
func (r *runner) checkSafety([]*waiter, map[*waiter]outcome) {
	if held := r.totalHeld(); held > r.size {
		r.failf("over-admission", "%d permits are held of %d: %s", held, r.size, r.heldText())
	}
}

// checkTries checks each TryAcquire of the step.
func (r *runner) checkTries(cand []*waiter, got map[*waiter]outcome) {
	quiet := len(cand) == 0 // nobody waited at any point of the step
	for _, t := range r.rec.tries {
		r.count(fmt.Sprintf("outcome/try/%t", t.ok))
		free := r.freeAt(t.at)
		switch {
		case t.n == 0 && !t.ok:
			r.failf("try", "%s: TryAcquire(0) reported false; want true", t.name)
		case t.n > r.size && t.ok:
			r.failf("over-admission", "%s: TryAcquire(%d) on size %d reported true", t.name, t.n, r.size)
		case quiet && !t.ok && t.n <= free:
			r.failf("try", "%s: TryAcquire(%d) reported false with %d permits free and no Acquire waiting; want true",
				t.name, t.n, free)
		case t.ok && t.n > 0 && r.claims.NoBarging:
			if w := waitedThrough(cand, got, t.at); w != nil {
				r.failf("barging", "%s: TryAcquire(%d) reported true while %s was waiting; NoBarging wants false",
					t.name, t.n, w.name)
			}
		}
		if r.fail != nil {
			return
		}
	}
}

// freeAt returns the permits free just before the i-th operation of the
// step, counting only this step's releases and TryAcquires: exact when
// nobody waits.
func (r *runner) freeAt(i int) int64 {
	free := r.size - r.rec.heldAt
	for j := range i {
		free += r.rec.released[j]
	}
	for _, t := range r.rec.tries {
		if t.at < i && t.ok {
			free -= t.n
		}
	}
	return free
}

// waitedThrough returns a waiter that was blocked when the i-th operation
// ran: it had started before it and is still waiting.
func waitedThrough(cand []*waiter, got map[*waiter]outcome, i int) *waiter {
	for _, w := range cand {
		if got[w] == waiting && (w.blocked || w.startOp < i) {
			return w
		}
	}
	return nil
}

// checkLiveness checks that, at quiescence, some waiter wants more than is
// free: otherwise a wake-up was lost.
func (r *runner) checkLiveness(cand []*waiter, got map[*waiter]outcome) {
	free := r.size - r.totalHeld()
	var blocked []*waiter
	for _, w := range cand {
		if got[w] != waiting {
			continue
		}
		if w.n > free {
			return
		}
		blocked = append(blocked, w)
	}
	if len(blocked) > 0 {
		r.failf("lost-wakeup", "%s still waiting for %s permits with %d free: a wake-up was lost",
			names(blocked), weights(blocked), free)
	}
}

// checkUnitFIFO checks that no single-permit waiter was served while an
// earlier one still waits.
func (r *runner) checkUnitFIFO(cand []*waiter, got map[*waiter]outcome) {
	if !r.claims.UnitFIFO {
		return
	}
	for _, w := range cand {
		if got[w] != served || w.n != 1 {
			continue
		}
		for _, e := range cand {
			if e.n == 1 && e.arrival < w.arrival && got[e] == waiting {
				r.failf("unit-fifo", "%s (1 permit) was served while %s (1 permit, arrived earlier) still waits", w.name, e.name)
				return
			}
		}
	}
}

// checkAvailable compares Available, if the semaphore has it, with the
// permits the model knows are free: equal when nobody waits, at most that
// otherwise (a waiter may hold permits it is still gathering).
func (r *runner) checkAvailable() {
	a, ok := r.s.(interface{ Available() int64 })
	if !ok {
		return
	}
	var got int64
	if msg, p := panics(func() { got = a.Available() }); p {
		r.failf("available", "Available() panicked: %s", msg)
		return
	}
	free := r.size - r.totalHeld()
	switch q := r.queue(); {
	case len(q) == 0 && got != free:
		r.failf("available", "Available() = %d with nobody waiting; want %d (size %d, %s)", got, free, r.size, r.heldText())
	case got < 0 || got > free:
		r.failf("available", "Available() = %d; want 0..%d while %s wait (size %d, %s)", got, free, names(q), r.size, r.heldText())
	}
}

// heldText describes who holds permits.
func (r *runner) heldText() string {
	if len(r.holders) == 0 {
		return "nobody holds permits"
	}
	s := "held by"
	for _, h := range r.holders {
		s += fmt.Sprintf(" %s:%d", h, r.held[h])
	}
	return s
}

// weights lists the weights of waiters.
func weights(ws []*waiter) string {
	s := make([]int64, len(ws))
	for i, w := range ws {
		s[i] = w.n
	}
	return fmt.Sprint(s)
}
