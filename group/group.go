// Package group runs goroutines that each hold permits of a semaphore, waits
// for them all, and reports the first error: the shape of
// golang.org/x/sync/errgroup, with a [sem.Semaphore] where errgroup's
// SetLimit has a count of goroutines.
//
// What the semaphore adds: a call can take more than one permit (a big job
// takes more of the budget than a small one), the order in which waiting
// calls are served is the strategy's (weighted serves them in arrival order
// whatever their weights; spinsem favours throughput), and the budget can be
// shared with other code, other groups, or, through etcdsem and redissem,
// other processes.
//
//	g, ctx := group.WithContext(ctx, weighted.New(8))
//	for _, j := range jobs {
//		g.Go(j.Cost, func() error { return j.Run(ctx) }) // waits for j.Cost permits
//	}
//	return g.Wait()
//
// # Cancellation
//
// [Group.Go] acquires its permits before it starts the goroutine, from the
// goroutine that calls it, and so blocks that goroutine while the permits
// are taken, as errgroup's Go does once a limit is set. It waits with the
// group's context: once that is done (the first failure, the parent
// context done, or [Group.Wait] returned), a Go call that waits for permits
// returns at once without running its function, and so does every later
// one. Functions already running are not stopped: they see the group's
// context done and should return. A function that calls Go on its own group
// waits for permits while it holds some, and so can wait forever when the
// semaphore is full, as with errgroup's limit: call TryGo there.
//
// A Go call that could not take its permits counts as a failure of its
// function, with the error Acquire returned: ctx.Err() of the group's
// context, or an error wrapping [sem.ErrExceedsSize] or [sem.ErrClosed].
// Wait reports the first failure only, so the cancellations that follow an
// error are not reported in its place.
//
// # Panics
//
// A function that panics gives its permits back like one that returns, and
// fails the group: its context is canceled with a [*PanicError] as cause.
// [Group.Wait] then panics with that *PanicError, which holds the value
// and the stack of the first panic, once every goroutine of the group has
// ended. This is what github.com/sourcegraph/conc does, and not what
// errgroup does (it lets the panic end the program where it happened): a
// panic in a request's work then reaches the goroutine that waits for it,
// where a server's recovery can handle it, instead of ending the process.
// A function that calls runtime.Goexit ends as if it returned nil.
package group

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/check"
)

const pkg check.Pkg = "group"

// A Group is a collection of goroutines that each hold permits of one
// semaphore while they run. Make one with [New] or [WithContext]; its
// methods are safe for concurrent use.
type Group struct {
	s      sem.Semaphore
	ctx    context.Context // what Acquire waits with
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup

	errOnce sync.Once
	err     error

	panicOnce sync.Once
	panicked  *PanicError
}

// New returns a Group whose goroutines hold permits of s. Its Go calls wait
// for permits without a deadline, and a failure cancels nothing: use
// [WithContext] to stop the others at the first failure.
func New(s sem.Semaphore) *Group {
	mustHave("New", s)
	return &Group{s: s, ctx: context.Background()}
}

// WithContext returns a Group whose goroutines hold permits of s, and a
// context derived from ctx that is canceled, with the failure as its cause,
// the first time a function returns an error or panics or a Go call cannot
// take its permits, or when Wait returns, whichever comes first. Go calls
// wait for permits with that context. New and WithContext panic if s is nil.
func WithContext(ctx context.Context, s sem.Semaphore) (*Group, context.Context) {
	mustHave("WithContext", s)
	ctx, cancel := context.WithCancelCause(ctx)
	return &Group{s: s, ctx: ctx, cancel: cancel}, ctx
}

// mustHave panics, naming the constructor, if s is nil: the mistake would
// otherwise show only at the first Go, far from where it was made.
func mustHave(ctor string, s sem.Semaphore) {
	if s == nil {
		panic("group: " + ctor + ": nil semaphore")
	}
}

// Go acquires n permits, waiting for them with the group's context, then
// calls f in a new goroutine that gives the permits back when f returns or
// panics. If the permits cannot be taken (the context is done, n exceeds
// the size, the semaphore is closed), f is not called and the error counts
// as its failure. The first failure cancels the group's context, if it has
// one. Go panics if n < 0.
func (g *Group) Go(n int64, f func() error) {
	pkg.PanicIfNegative("Go", n)
	g.wg.Add(1) // a Wait that has begun waits for this call too
	if err := g.s.Acquire(g.ctx, n); err != nil {
		g.fail(err)
		g.wg.Done()
		return
	}
	go g.run(n, f)
}

// TryGo calls f in a new goroutine holding n permits only if it can take
// them at once and the group's context is not done, and reports whether it
// did. It never blocks, and a refusal is not a failure of the group. TryGo
// panics if n < 0.
func (g *Group) TryGo(n int64, f func() error) bool {
	if !g.tryAcquire(n) {
		return false
	}
	g.wg.Add(1)
	go g.run(n, f)
	return true
}

// tryAcquire takes n permits for TryGo if the context is not done.
func (g *Group) tryAcquire(n int64) bool {
	pkg.PanicIfNegative("TryGo", n)
	return g.ctx.Err() == nil && g.s.TryAcquire(n)
}

// Wait blocks until every function started by Go or TryGo has returned,
// and every Go call that waits for permits has returned too, then cancels the group's context and returns the first failure, or nil.
// If a function panicked, Wait panics instead, with the [*PanicError] of
// the first panic. When Wait returns, every permit the group took has been
// given back.
func (g *Group) Wait() error {
	g.wg.Wait()
	if g.cancel != nil {
		g.cancel(g.err)
	}
	if g.panicked != nil {
		panic(g.panicked)
	}
	return g.err
}

// run calls f, which holds n permits, and ends one call of the group.
func (g *Group) run(n int64, f func() error) {
	defer g.wg.Done()
	defer g.s.Release(n)
	defer g.recover()
	if err := f(); err != nil {
		g.fail(err)
	}
}

// recover turns a panic of the goroutine's function into a failure of the
// group, to be raised again by Wait.
func (g *Group) recover() {
	v := recover()
	if v == nil {
		return
	}
	p := &PanicError{Value: v, Stack: debug.Stack()}
	g.panicOnce.Do(func() { g.panicked = p })
	g.fail(p)
}

// fail records err if it is the first failure, and cancels the context.
func (g *Group) fail(err error) {
	g.errOnce.Do(func() {
		g.err = err
		if g.cancel != nil {
			g.cancel(err)
		}
	})
}

// A PanicError is the panic of a function run by a [Group], which
// [Group.Wait] raises again, and the cause of the group's context.
type PanicError struct {
	Value any    // what the function panicked with
	Stack []byte // the stack of the panicking goroutine, from debug.Stack
}

// Error reports the panic value and the stack where it happened.
func (p *PanicError) Error() string {
	return fmt.Sprintf("group: a function panicked: %v\n\n%s", p.Value, p.Stack)
}

// Unwrap returns the panic value if it is an error, so that errors.Is and
// errors.As see it.
func (p *PanicError) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}
