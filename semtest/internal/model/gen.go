package model

import (
	"fmt"
	"math/rand/v2"
)

// maxWaiting bounds the waiters a program keeps blocked at once.
const maxWaiting = 4

// generate draws the next step of a random program from the model's state,
// so that every release names a holder that holds the permits. It returns
// the step and the name of its kind, for the counts.
func (r *runner) generate(rng *rand.Rand) (step, string) {
	for {
		switch k := rng.IntN(24); {
		case k < 6:
			if len(r.queue()) < maxWaiting {
				o := r.newAcquire(rng)
				return step{o}, "acquire/" + ctxNames[o.ctx]
			}
		case k < 9:
			return step{r.newTry(rng, r.size+2)}, "try"
		case k < 13:
			if o, ok := r.newRelease(rng); ok {
				return step{o}, "release"
			}
		case k < 15:
			if w := r.cancelable(rng); w != nil {
				return step{{kind: opCancel, name: w.name}}, "cancel"
			}
		case k < 17:
			return step{{kind: opSleep, d: 1 + rng.IntN(3)}}, "sleep"
		case k < 18:
			return step{{kind: opOverRelease}}, "overrelease"
		case k < 22:
			if s, ok := r.newSteal(); ok && rng.IntN(2) == 0 {
				return s, "release+cancel+steal"
			}
			if s, label, ok := r.newRace(rng); ok {
				return s, label
			}
		default:
			if s, ok := r.newBurst(rng); ok {
				return s, "burst"
			}
		}
	}
}

// newAcquire draws an Acquire: mostly a weight that may wait, sometimes a
// zero or impossible one; any kind of context.
func (r *runner) newAcquire(rng *rand.Rand) op {
	o := op{kind: opAcquire, name: fmt.Sprintf("w%d", len(r.arrived)+1), n: 1 + rng.Int64N(r.size)}
	if rng.IntN(5) == 0 {
		o.n = []int64{0, r.size + 1}[rng.IntN(2)]
	}
	switch k := rng.IntN(20); {
	case k < 5:
		o.ctx = ctxBackground
	case k < 11:
		o.ctx = ctxCancelable
	case k < 16:
		o.ctx, o.d = ctxTimeout, rng.IntN(4)
	case k < 18:
		o.ctx = ctxCanceled
	default:
		o.ctx = ctxExpired
	}
	return o
}

// newTry draws a TryAcquire of 0..max-1 permits.
func (r *runner) newTry(rng *rand.Rand, max int64) op {
	r.tries++
	return op{kind: opTry, name: fmt.Sprintf("t%d", r.tries), n: rng.Int64N(max)}
}

// newRelease draws a release of part or all of what one holder holds.
func (r *runner) newRelease(rng *rand.Rand) (op, bool) {
	if len(r.holders) == 0 {
		return op{}, false
	}
	h := r.holders[rng.IntN(len(r.holders))]
	return op{kind: opRelease, name: h, n: 1 + rng.Int64N(r.held[h])}, true
}

// cancelable draws a blocked waiter whose context can be canceled.
func (r *runner) cancelable(rng *rand.Rand) *waiter {
	var ws []*waiter
	for _, w := range r.queue() {
		if w.ctx == ctxCancelable || w.ctx == ctxTimeout {
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 {
		return nil
	}
	return ws[rng.IntN(len(ws))]
}

// newRace draws a Release and the cancellation of a waiter, back to back in
// either order: the window where a grant and a cancellation race.
func (r *runner) newRace(rng *rand.Rand) (step, string, bool) {
	w := r.cancelable(rng)
	rel, ok := r.newRelease(rng)
	if w == nil || !ok {
		return nil, "", false
	}
	c := op{kind: opCancel, name: w.name}
	if rng.IntN(2) == 0 {
		return step{c, rel}, "cancel+release", true
	}
	return step{rel, c}, "release+cancel", true
}

// newSteal builds, when one holder holds every held permit and one
// cancelable waiter waits, the step that releases all of them, cancels the
// waiter, and releases the permits the waiter may have been granted
// meanwhile, with no settling between: the waiter is granted, another
// goroutine legally releases its permits, and only then does the waiter see
// its context done.
func (r *runner) newSteal() (step, bool) {
	q := r.queue()
	if len(r.holders) != 1 || len(q) != 1 || (q[0].ctx != ctxCancelable && q[0].ctx != ctxTimeout) {
		return nil, false
	}
	h, w := r.holders[0], q[0]
	return step{{kind: opRelease, name: h, n: r.held[h]}, {kind: opCancel, name: w.name}, {kind: opSteal, name: w.name}}, true
}

// newBurst draws one or two single-permit releases followed by a
// TryAcquire, with no settling between them.
func (r *runner) newBurst(rng *rand.Rand) (step, bool) {
	if len(r.holders) == 0 {
		return nil, false
	}
	var s step
	left := map[string]int64{}
	for _, h := range r.holders {
		left[h] = r.held[h]
	}
	for range 1 + rng.IntN(2) {
		h := r.holders[rng.IntN(len(r.holders))]
		if left[h] > 0 {
			left[h]--
			s = append(s, op{kind: opRelease, name: h, n: 1})
		}
	}
	return append(s, r.newTry(rng, 3)), true
}
