// Package oracle checks semaphores for linearizability against a sequential
// model of the contract in package sem, with
// github.com/anishathalye/porcupine: real goroutines call Acquire,
// TryAcquire and Release (and cancel contexts) at the same time, every call
// is recorded with the moments it began and returned, and porcupine searches
// for an order of the calls, each taking effect at one instant between its
// call and its return, that the model accepts.
//
// It is independent of semtest and of the strategies: its model is written
// from the contract alone, and its histories come from goroutines that run
// freely, not from a scheduler the suite controls. It lives in a development
// module so that porcupine never reaches users of the library.
package oracle

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// kind names an operation of a history.
type kind int

const (
	acquire kind = iota // Acquire(ctx, n)
	try                 // TryAcquire(n)
	release             // Release(n)
	cancel              // the cancel function of an Acquire's context
)

// input is what an operation was asked to do.
type input struct {
	kind   kind
	n      int64
	id     int // the Acquire whose context: acquire and cancel
	handle int // the handle called: acquire, try and release
	// doneBefore: an Acquire whose context was done before the call.
	doneBefore bool
	// quiet: a TryAcquire made while no other call was in flight, so that
	// no Acquire waited and it must succeed if the permits are free.
	quiet bool
	// over: a Release by a caller that held nothing, which only others'
	// permits can make legal. The model does not look at it; reports do.
	over bool
}

// result is how an operation ended.
type result int

const (
	ok       result = iota // Acquire returned nil, TryAcquire true, Release returned
	refused                // Acquire returned ctx.Err(), TryAcquire false
	panicked               // the call panicked (Release: "released more than held")
	wrongErr               // Acquire returned an error other than ctx.Err()
)

var resultNames = [...]string{"ok", "refused", "panicked", "wrong error"}

// state is the model's state: the permits held, in all and through each
// handle, and which Acquire contexts are done (bit id).
type state struct {
	held  int64
	owned [maxHandles]int64
	done  uint64
}

// maxAcquires bounds the Acquire calls of one history: one bit each in
// state.done.
const maxAcquires = 64

// maxHandles bounds the handles on one semaphore in a history.
const maxHandles = 4

// Model is the contract of package sem as a sequential specification, for a
// semaphore of the given size:
//
//   - Acquire(ctx, n) returns nil and takes n permits only while they are
//     free and its context is not done: a cancellation that came first wins.
//     It returns ctx.Err() and changes nothing only once its context is done
//     (a waiter granted before that may give the permits back: the net
//     effect is the same). It never panics.
//   - TryAcquire(n) reporting true takes n free permits. Reporting false is
//     always possible while other calls are in flight, since an Acquire may
//     be waiting and a semaphore may refuse to pass it; with nothing in
//     flight it is allowed only when fewer than n permits are free.
//   - Release(n) returns n held permits, or panics and changes nothing if
//     fewer than n are held. The permits are counted per handle: a handle
//     gives back only what was acquired through it, as a process gives
//     back only its own (a distributed semaphore's handles are separate
//     processes). A local semaphore is one handle, whose count is the
//     semaphore's.
//   - cancel marks the context of one Acquire done.
func Model(size int64) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return state{} },
		Step: func(s, in, out any) (bool, any) {
			return step(size, s.(state), in.(input), out.(result))
		},
		DescribeOperation: func(in, out any) string { return describe(in.(input), out.(result)) },
		DescribeState: func(s any) string {
			return fmt.Sprintf("%d of %d held", s.(state).held, size)
		},
	}
}

// step applies one operation to s, and reports whether the contract allows
// the result.
func step(size int64, s state, in input, out result) (bool, state) {
	fits := s.held+in.n <= size
	switch in.kind {
	case acquire:
		done := in.doneBefore || s.done&(1<<in.id) != 0
		switch out {
		case ok:
			if done || !fits {
				return false, s
			}
			return true, s.take(in)
		case refused:
			return done, s
		}
		return false, s // Acquire never panics, nor fails otherwise
	case try:
		switch out {
		case ok:
			if !fits {
				return false, s
			}
			return true, s.take(in)
		case refused:
			return !in.quiet || !fits, s
		}
		return false, s
	case release:
		switch out {
		case ok:
			if in.n > s.owned[in.handle] {
				return false, s
			}
			s.held -= in.n
			s.owned[in.handle] -= in.n
			return true, s
		case panicked:
			return in.n > s.owned[in.handle], s
		}
		return false, s
	default: // cancel
		s.done |= 1 << in.id
		return true, s
	}
}

// take adds the permits of a successful Acquire or TryAcquire to s.
func (s state) take(in input) state {
	s.held += in.n
	s.owned[in.handle] += in.n
	return s
}

func describe(in input, out result) string {
	switch in.kind {
	case acquire:
		ctx := "ctx"
		if in.doneBefore {
			ctx = "done ctx"
		}
		return fmt.Sprintf("a%d: Acquire(%s, %d) -> %s", in.id, ctx, in.n, resultNames[out])
	case try:
		q := ""
		if in.quiet {
			q = " (quiet)"
		}
		return fmt.Sprintf("TryAcquire(%d)%s -> %s", in.n, q, resultNames[out])
	case release:
		over := ""
		if in.over {
			over = " (over)"
		}
		return fmt.Sprintf("Release(%d)%s -> %s", in.n, over, resultNames[out])
	default:
		return fmt.Sprintf("cancel a%d", in.id)
	}
}
