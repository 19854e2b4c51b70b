package model

import (
	"testing"
	"time"
)

// shrink looks for a shorter, simpler program that fails the same way as p
// (the same kind of failure) until no edit helps or the deadline passes, and
// returns its failure. Edits, tried in this order until one is kept: drop a
// run of steps (halves first, then smaller runs), split a compound step,
// drop an operation of a compound step, and lower a size, weight or time.
// A candidate in which an operation no longer applies is rejected, so the
// result replays as it reads.
func shrink(t *testing.T, newSem NewFunc, c Claims, p program, f *Failure, deadline time.Time) *Failure {
	try := func(q program) bool {
		if time.Now().After(deadline) {
			return false
		}
		g, invalid := runFixed(t, newSem, c, q)
		if g == nil || invalid != "" || g.Kind != f.Kind {
			return false
		}
		p, f = q, g
		return true
	}
	for progress := true; progress && time.Now().Before(deadline); {
		progress = dropSteps(p, try) || editSteps(p, try) || lower(p, try)
	}
	return f
}

// dropSteps tries removing runs of steps, longest first. It reports whether
// a removal was kept.
func dropSteps(p program, try func(program) bool) bool {
	for chunk := len(p.steps) / 2; chunk >= 1; chunk /= 2 {
		for start := len(p.steps) - chunk; start >= 0; start-- {
			q := p.clone()
			q.steps = append(q.steps[:start], q.steps[start+chunk:]...)
			if try(q) {
				return true
			}
		}
	}
	return false
}

// editSteps tries splitting each compound step into single steps, and
// dropping each operation of a compound step.
func editSteps(p program, try func(program) bool) bool {
	for i, s := range p.steps {
		if len(s) < 2 {
			continue
		}
		q := p.clone()
		split := make([]step, len(s))
		for j, o := range s {
			split[j] = step{o}
		}
		q.steps = append(q.steps[:i], append(split, q.steps[i+1:]...)...)
		if try(q) {
			return true
		}
		for j := range s {
			q := p.clone()
			q.steps[i] = append(q.steps[i][:j], q.steps[i][j+1:]...)
			if try(q) {
				return true
			}
		}
	}
	return false
}

// lower tries a smaller size, then smaller numbers and simpler contexts in
// each operation.
func lower(p program, try func(program) bool) bool {
	if p.size > 1 {
		q := p.clone()
		q.size--
		if try(q) {
			return true
		}
	}
	for i, s := range p.steps {
		for j, o := range s {
			for _, e := range simpler(o) {
				q := p.clone()
				q.steps[i][j] = e
				if try(q) {
					return true
				}
			}
		}
	}
	return false
}

// simpler returns the variants of o with one number lowered or a simpler
// context.
func simpler(o op) []op {
	var out []op
	if o.n > 1 || (o.n == 1 && o.kind != opRelease) {
		e := o
		e.n--
		out = append(out, e)
	}
	if o.d > 1 || (o.d == 1 && o.kind == opAcquire) {
		e := o
		e.d--
		out = append(out, e)
	}
	if o.kind == opAcquire && o.ctx != ctxBackground {
		for _, k := range []ctxKind{ctxBackground, ctxCancelable} {
			if k < o.ctx {
				e := o
				e.ctx, e.d = k, 0
				out = append(out, e)
			}
		}
	}
	return out
}
