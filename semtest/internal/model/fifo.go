package model

import (
	"cmp"

	"slices"
)

// fifo replays one step on the model of a FIFO semaphore: a queue in arrival
// order whose head is served as soon as it fits, and which blocks everyone
// behind it until then.
type fifo struct {
	r       *runner
	queue   []*waiter
	free    int64
	granted map[*waiter]when
	want    map[*waiter]outcome
	got     map[*waiter]outcome
}

// checkFIFO predicts, under a FIFO claim, which waiters the step serves, and
// compares with what they did. Where the contract allows two outcomes (a
// waiter granted just before its context was done may keep the grant or give
// it back) the prediction follows the observed one.
func (r *runner) checkFIFO(cand []*waiter, got map[*waiter]outcome) {
	if !r.claims.FIFO {
		return
	}
	f := &fifo{
		r: r, queue: slices.Clone(r.queue()), free: r.size - r.rec.heldAt,
		granted: map[*waiter]when{}, want: map[*waiter]outcome{}, got: got,
	}
	for i, o := range r.rec.ops {
		f.apply(i, o)
		if r.fail != nil {
			return
		}
	}
	for _, w := range cand {
		if f.want[w] != got[w] {
			r.failf("fifo", "%s (%d permits) is %s; FIFO wants it %s. FIFO predicts served %s, failed %s, waiting %s; observed served %s, failed %s, waiting %s",
				w.name, w.n, outcomeNames[got[w]], outcomeNames[f.want[w]],
				pick(cand, f.want, served), pick(cand, f.want, failed), pick(cand, f.want, waiting),
				pick(cand, got, served), pick(cand, got, failed), pick(cand, got, waiting))
			return
		}
	}
}

// apply plays the i-th operation of the step on the model.
func (f *fifo) apply(i int, o op) {
	at := when{op: i}
	switch o.kind {
	case opAcquire:
		if w := f.r.waiters[o.name]; slices.Contains(f.r.rec.started, w) {
			f.queue = append(f.queue, w)
			f.grant(at)
		}
	case opTry:
		f.try(i)
	case opRelease:
		f.free += f.r.rec.released[i]
		f.grant(at)
	case opSteal:
		if w := f.r.waiters[o.name]; w != nil && w.stolen {
			f.free += w.n
			f.grant(at)
		}
	case opCancel:
		if w := f.r.waiters[o.name]; w != nil && w.doneAt == at {
			f.leave(w)
		}
	case opSleep:
		var expired []*waiter
		for _, w := range f.r.arrived {
			if w.doneAt.op == i {
				expired = append(expired, w)
			}
		}
		slices.SortStableFunc(expired, func(a, b *waiter) int { return cmp.Compare(a.doneAt.at, b.doneAt.at) })
		for _, w := range expired {
			f.leave(w)
		}
	}
}

// try plays the i-th operation, a TryAcquire: one that succeeded must have
// fit in what FIFO left free. (Whether one must succeed is checked by
// checkTries: a waiter that FIFO has served or that was canceled may not
// have left the queue yet, its goroutine not having run, so TryAcquire may
// still see it waiting.)
func (f *fifo) try(i int) {
	for _, t := range f.r.rec.tries {
		if t.at != i {
			continue
		}
		if t.ok && t.n > f.free {
			f.r.failf("fifo", "%s: TryAcquire(%d) reported true, but FIFO had served %s first and left %d permits free",
				t.name, t.n, names(f.servedSoFar()), f.free)
		}
		if t.ok {
			f.free -= t.n
		}
	}
}

// servedSoFar lists the waiters the model has served in this step, in
// arrival order.
func (f *fifo) servedSoFar() []*waiter {
	var ws []*waiter
	for _, w := range f.r.arrived {
		if f.want[w] == served {
			ws = append(ws, w)
		}
	}
	return ws
}

// grant serves the head of the queue for as long as it fits.
func (f *fifo) grant(at when) {
	for len(f.queue) > 0 && f.queue[0].n <= f.free {
		w := f.queue[0]
		f.queue = f.queue[1:]
		f.free -= w.n
		f.granted[w], f.want[w] = at, served
	}
}

// leave takes w, whose context just became done, out of the model. Queued,
// it fails. Granted earlier in the same instant (no settling between), it
// may keep the grant or give the permits back: the observation decides.
func (f *fifo) leave(w *waiter) {
	if i := slices.Index(f.queue, w); i >= 0 {
		f.queue = slices.Delete(f.queue, i, i+1)
		f.want[w] = failed
		f.grant(w.doneAt)
		return
	}
	g, ok := f.granted[w]
	if !ok || (g.op == w.doneAt.op && g.at < w.doneAt.at) {
		return // not waiting, or served and returned before its timeout fired
	}
	if f.got[w] == failed {
		f.r.count("fifo/granted-then-canceled/gave-back")
		f.free += w.n
		f.want[w] = failed
		f.grant(w.doneAt)
		return
	}
	f.r.count("fifo/granted-then-canceled/kept")
}

// pick lists the waiters with a given outcome.
func pick(cand []*waiter, m map[*waiter]outcome, o outcome) string {
	var ws []*waiter
	for _, w := range cand {
		if m[w] == o {
			ws = append(ws, w)
		}
	}
	return names(ws)
}
