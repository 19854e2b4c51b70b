package model

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/semacat/sem"
)

// tick is the unit of simulated time. Timeouts expire half a tick after a
// whole number of ticks, so that no expiry coincides with the end of a sleep.
const tick = time.Second

// waiter is one Acquire running in its own goroutine, and what the model
// knows about it.
type waiter struct {
	op                         // the acquire that started it
	arrival int                // position in arrival order
	expiry  int                // for a timeout: the last tick before it expires
	context context.Context    // the context passed to Acquire (w.ctx is its kind)
	cancel  context.CancelFunc // cancels context
	done    atomic.Bool        // Acquire returned (or panicked)
	err     error              // Acquire's result, set before done
	panic   any                // Acquire's panic, set before done
	ctxDone bool               // the model: context is done
	doneAt  when               // the model: when context became done, in the current step
	blocked bool               // the model: waiting at the last observation
	counted bool               // the model: its permits are in runner.held
	stolen  bool               // the model: another goroutine released its granted permits
	startOp int                // index of its acquire in the step that started it
}

// when orders events inside one step: the index of the operation, and for
// the expiries of a sleep, the simulated time within it.
type when struct{ op, at int }

func (a when) before(b when) bool { return a.op < b.op || (a.op == b.op && a.at <= b.at) }

// runner runs one program in a bubble and holds the model's state.
type runner struct {
	newSem NewFunc
	claims Claims
	s      sem.Semaphore
	size   int64
	now    int // simulated ticks since the start

	waiters map[string]*waiter
	arrived []*waiter        // every waiter, in arrival order
	held    map[string]int64 // permits held, by holder (wK or tK)
	holders []string         // holders with permits, in the order they got them

	prog    program // the steps run so far
	stepNo  int     // 1-based index of the current step; 0 in the epilogue
	cur     string  // text of the current step
	rec     stepRecord
	fail    *Failure
	invalid string // the first operation that did not apply, in a replay
	counts  map[string]int
	tries   int // TryAcquires drawn so far, to name the next
}

// stepRecord is what happened during one step, for the checks that follow.
type stepRecord struct {
	ops       []op
	started   []*waiter     // Acquires started in this step that may wait, arrival order
	immediate []*waiter     // Acquires started in this step that must return at once
	released  map[int]int64 // permits released, by index of the operation
	tries     []tryResult
	frees     []freeEvent // operations that may have freed permits for a waiter
	heldAt    int64       // permits held when the step began
}

type tryResult struct {
	op
	at int  // index of the operation in the step
	ok bool // TryAcquire reported success
}

// freeEvent is an operation after which permits may have become grantable:
// a Release, or a waiter leaving the queue (by cancel or timeout).
type freeEvent struct {
	at  when
	who *waiter // the waiter that left, or nil for a release
}

func newRunner(newSem NewFunc, c Claims, size int64, counts map[string]int) *runner {
	return &runner{
		newSem: newSem, claims: c, size: size, counts: counts,
		waiters: map[string]*waiter{}, held: map[string]int64{},
		prog: program{size: size},
	}
}

// runRandom draws and runs the program of one seed, and returns the steps
// it ran and the failure, if any.
func runRandom(t *testing.T, newSem NewFunc, c Claims, cfg Config, seed uint64) (program, *Failure) {
	rng := rand.New(rand.NewPCG(seed, 0x5e3a))
	r := newRunner(newSem, c, 1+rng.Int64N(cfg.MaxSize), cfg.Counts)
	f := r.bubble(t, func() {
		for range cfg.Steps {
			s, label := r.generate(rng)
			r.count(label)
			if !r.step(s) {
				return
			}
		}
	})
	return r.prog, f
}

// runFixed runs a given program. It reports the first operation that did
// not apply, if any.
func runFixed(t *testing.T, newSem NewFunc, c Claims, p program) (*Failure, string) {
	r := newRunner(newSem, c, p.size, nil)
	f := r.bubble(t, func() {
		for _, s := range p.steps {
			if !r.step(s) {
				return
			}
		}
	})
	return f, r.invalid
}

func (r *runner) count(name string) {
	if r.counts != nil {
		r.counts[name]++
	}
}

// bubble builds the semaphore and runs body in a synctest bubble, then the
// epilogue, and returns the first failure. A failure stops the program, and
// every waiter is unblocked before the bubble ends.
func (r *runner) bubble(t *testing.T, body func()) (f *Failure) {
	defer func() {
		// synctest panics outside the bubble when goroutines of the bubble
		// are still blocked after it ended (the semaphore left them
		// behind), or when all of them block (a call never returns).
		if p := recover(); p != nil {
			msg := fmt.Sprint(p)
			if !strings.Contains(msg, "deadlock") {
				panic(p)
			}
			if f == nil {
				if strings.Contains(msg, "all goroutines in bubble are blocked") {
					r.failf("hang", "a call on the semaphore never returned: %s", msg)
				} else {
					r.failf("goroutine-leak", "goroutines of the program were left blocked after every call returned: %s", msg)
				}
				f = r.fail
				f.Program = r.prog.String()
			}
		}
	}()
	synctest.Test(t, func(*testing.T) {
		defer r.unblock()
		if msg, ok := panics(func() { r.s = r.newSem(r.size) }); ok {
			r.failf("new", "New(%d) panicked: %s", r.size, msg)
			return
		}
		body()
		if r.fail == nil {
			r.epilogue()
		}
	})
	if r.fail != nil {
		r.fail.Program = r.prog.String()
	}
	return r.fail
}

// failf records the first failure, at the current step.
func (r *runner) failf(kind, format string, args ...any) {
	if r.fail != nil {
		return
	}
	r.fail = &Failure{Step: r.stepNo, StepText: r.cur, Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// step runs the operations of s back to back, settles, and checks the
// outcome against the model. It reports whether the program may go on.
func (r *runner) step(s step) bool {
	r.prog.steps = append(r.prog.steps, s)
	r.stepNo, r.cur = len(r.prog.steps), s.String()
	return r.run(s)
}

// run runs the operations of s, settles and checks.
func (r *runner) run(s step) bool {
	r.rec = stepRecord{ops: s, heldAt: r.totalHeld(), released: map[int]int64{}}
	before := r.queue()
	for _, w := range r.arrived {
		w.doneAt = when{op: -1}
	}
	for i, o := range s {
		r.do(i, o)
		if r.fail != nil {
			return false
		}
	}
	synctest.Wait()
	r.observe(before)
	return r.fail == nil
}

// do runs the i-th operation of the current step.
func (r *runner) do(i int, o op) {
	switch o.kind {
	case opAcquire:
		r.startAcquire(i, o)
	case opTry:
		r.try(i, o)
	case opRelease:
		r.release(i, o)
	case opCancel:
		r.cancelWaiter(i, o)
	case opSleep:
		r.sleep(i, o.d)
	case opOverRelease:
		r.overRelease()
	case opSteal:
		r.steal(o)
	}
}

// skip notes an operation that does not apply in this run.
func (r *runner) skip(o op, why string) {
	if r.invalid == "" {
		r.invalid = fmt.Sprintf("step %d: %s: %s", r.stepNo, o, why)
	}
}

func (r *runner) startAcquire(i int, o op) {
	if _, dup := r.waiters[o.name]; dup {
		r.skip(o, "a waiter of that name exists")
		return
	}
	w := &waiter{op: o, arrival: len(r.arrived), startOp: i}
	w.context, w.cancel = r.newContext(w)
	r.waiters[o.name] = w
	r.arrived = append(r.arrived, w)
	if o.n > 0 && o.n <= r.size && !w.ctxDone {
		r.rec.started = append(r.rec.started, w)
	} else {
		r.rec.immediate = append(r.rec.immediate, w)
	}
	ctx := w.context
	go func() {
		defer func() {
			w.panic = recover()
			w.done.Store(true)
		}()
		w.err = r.s.Acquire(ctx, o.n)
	}()
}

// newContext builds the context of a new waiter.
func (r *runner) newContext(w *waiter) (context.Context, context.CancelFunc) {
	bg := context.Background()
	switch w.ctx {
	case ctxCancelable:
		return context.WithCancel(bg)
	case ctxTimeout:
		w.expiry = r.now + w.d
		return context.WithTimeout(bg, time.Duration(w.d)*tick+tick/2)
	case ctxCanceled:
		w.ctxDone = true
		ctx, cancel := context.WithCancel(bg)
		cancel()
		return ctx, cancel
	case ctxExpired:
		w.ctxDone = true
		return context.WithDeadline(bg, time.Now().Add(-tick))
	}
	return bg, func() {}
}

func (r *runner) try(i int, o op) {
	var ok bool
	if msg, p := panics(func() { ok = r.s.TryAcquire(o.n) }); p {
		r.failf("try-panic", "TryAcquire(%d) panicked: %s", o.n, msg)
		return
	}
	r.rec.tries = append(r.rec.tries, tryResult{op: o, at: i, ok: ok})
	if ok && o.n > 0 {
		if _, dup := r.held[o.name]; dup {
			r.skip(o, "a holder of that name exists")
		}
		r.hold(o.name, o.n)
	}
}

func (r *runner) release(i int, o op) {
	if r.held[o.name] < o.n {
		r.skip(o, fmt.Sprintf("%s holds %d", o.name, r.held[o.name]))
		return
	}
	if msg, p := panics(func() { r.s.Release(o.n) }); p {
		r.failf("release-panic", "Release(%d) of permits %s holds (%d held in all) panicked: %s",
			o.n, o.name, r.totalHeld(), msg)
		return
	}
	r.hold(o.name, -o.n)
	r.rec.released[i] = o.n
	r.rec.frees = append(r.rec.frees, freeEvent{at: when{op: i}})
}

func (r *runner) cancelWaiter(i int, o op) {
	w := r.waiters[o.name]
	if w == nil || (w.ctx != ctxCancelable && w.ctx != ctxTimeout) {
		r.skip(o, "no waiter of that name with a cancelable context")
		return
	}
	w.cancel()
	if !w.ctxDone {
		w.ctxDone, w.doneAt = true, when{op: i}
		r.left(w)
	}
}

// sleep lets d ticks pass; the timeouts that expire meanwhile are recorded
// at their instant, in half ticks after the start of the sleep.
func (r *runner) sleep(i, d int) {
	time.Sleep(time.Duration(d) * tick)
	from := r.now
	r.now += d
	for _, w := range r.arrived {
		if w.ctx == ctxTimeout && !w.ctxDone && w.expiry < r.now {
			w.ctxDone, w.doneAt = true, when{op: i, at: 2*(w.expiry-from) + 1}
			r.left(w)
		}
	}
}

// left records that w, whose context just became done, may have left the
// queue and so let others be served, if it was waiting.
func (r *runner) left(w *waiter) {
	if w.blocked || slices.Contains(r.rec.started, w) {
		r.rec.frees = append(r.rec.frees, freeEvent{at: w.doneAt, who: w})
	}
}

func (r *runner) overRelease() {
	n := r.totalHeld() + 1
	msg, p := panics(func() { r.s.Release(n) })
	switch {
	case !p:
		r.failf("over-release", "Release(%d) with %d held in all did not panic; want a panic \"released more than held\"",
			n, n-1)
	case !strings.Contains(msg, "released more than held"):
		r.failf("over-release", "Release(%d) with %d held in all panicked with %q; want \"released more than held\"",
			n, n-1, msg)
	}
}

// steal releases, from the step's goroutine, the permits that waiter
// o.name asked for, while nobody else holds permits or waits: the Release
// is legal exactly when the waiter has been granted them, and panics
// "released more than held" otherwise, changing nothing.
func (r *runner) steal(o op) {
	w := r.waiters[o.name]
	others := slices.DeleteFunc(append(r.queue(), r.rec.started...), func(q *waiter) bool { return q == w })
	switch {
	case w == nil || !w.blocked && !slices.Contains(r.rec.started, w):
		r.skip(o, "no waiting Acquire of that name")
		return
	case r.totalHeld() > 0 || len(others) > 0:
		r.skip(o, "others hold permits or wait")
		return
	}
	msg, p := panics(func() { r.s.Release(w.n) })
	switch {
	case !p:
		w.stolen = true
		r.count("steal/granted")
	case strings.Contains(msg, "released more than held"):
		r.count("steal/not-granted")
	default:
		r.failf("release-panic", "Release(%d) of the permits %s may have been granted panicked with %q; want success, or \"released more than held\" if they were not granted yet",
			w.n, w.name, msg)
	}
}

// hold adds delta permits to what holder name holds.
func (r *runner) hold(name string, delta int64) {
	had := r.held[name]
	r.held[name] = had + delta
	switch {
	case had == 0 && delta > 0:
		r.holders = append(r.holders, name)
	case had+delta == 0:
		delete(r.held, name)
		for i, h := range r.holders {
			if h == name {
				r.holders = append(r.holders[:i], r.holders[i+1:]...)
				break
			}
		}
	}
}

func (r *runner) totalHeld() int64 {
	var sum int64
	for _, n := range r.held {
		sum += n
	}
	return sum
}

// queue returns the waiters blocked at the last observation, in arrival order.
func (r *runner) queue() []*waiter {
	var q []*waiter
	for _, w := range r.arrived {
		if w.blocked {
			q = append(q, w)
		}
	}
	return q
}

// panics calls f and reports the panic message, if it panicked.
func panics(f func()) (msg string, panicked bool) {
	defer func() {
		if p := recover(); p != nil {
			msg, panicked = fmt.Sprint(p), true
		}
	}()
	f()
	return "", false
}

// names lists the names of waiters.
func names(ws []*waiter) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.name
	}
	return "[" + strings.Join(s, " ") + "]"
}
