package check

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// In a run with random nudges and laggards, one goroutine in slowOneIn is slow: its
// nudges are slowFactor times as long, so that it falls behind the others
// by many of their steps, as a goroutine the OS descheduled would.
const (
	slowOneIn  = 8
	slowFactor = 6
)

// maxFailedTries bounds the TryAcquires in a row that fail, with nothing
// else between them, of one goroutine: one that fails more often waits by
// polling (busy-waits), and is rejected. A solution that tries a few
// semaphores, one after the other, stays far below it.
const maxFailedTries = 16

// maxSteps bounds the scheduling points of one run: a solution that spins
// (TryAcquire in a loop while nobody can release) is stopped there.
const maxSteps = 1_000_000

// Run is one run of a scenario. Its goroutines take turns: exactly one of
// them runs at a time, from one scheduling point to the next, and the
// scheduler, on the run's own goroutine, picks the next by the seed.
type Run struct {
	seed     uint64
	rng      *rand.Rand
	lockstep bool  // every nudge is one tick and the ready run in turn
	order    order // how the semaphores serve their waiters
	laggards bool  // some goroutines are slow
	now      time.Duration

	ctx     context.Context // done at the Deadline
	cancel  context.CancelFunc
	stopCtx context.Context // done once the workers have returned
	stop    context.CancelFunc

	current  *goroutine   // the one running, nil while the scheduler decides
	ready    []*goroutine // may run now, in the order they became ready
	sleeping []*goroutine // in the order they went to sleep
	blocked  []*goroutine // in an Acquire, in the order they began waiting
	yielded  chan struct{}
	live     int // goroutines started and not returned
	workers  int // of them, started with Go
	steps    int
	deadlock bool
	stopped  bool

	events []Event
	errs   []error
	watch  *watchdog // nil outside Verify
	free   *free     // non-nil in a free run (see free.go)
}

// goroutine is one goroutine of a run.
type goroutine struct {
	name   string
	server bool
	slow   bool          // its nudges are slowFactor times longer
	wake   chan struct{} // the scheduler's go-ahead
	wakeAt time.Duration // while sleeping
	err    error         // why a wait ended, if not with its permits
	sem    *semaphore    // the semaphore it waits on, while blocked

	failedTries int // TryAcquires that failed since its last other operation
}

// busyWait is the panic that stops a goroutine that busy-waits.
type busyWait struct{}

func (b busyWait) Error() string {
	return fmt.Sprintf("busy-waits: its TryAcquire failed %d times in a row with nothing else between; a goroutine that must wait blocks in Acquire", maxFailedTries)
}

// tried counts a TryAcquire of g that failed, and stops g if it busy-waits.
func (r *Run) tried(g *goroutine) {
	if g.failedTries++; g.failedTries == maxFailedTries {
		panic(busyWait{})
	}
}

func newRun(seed uint64, laggards bool) *Run {
	r := &Run{
		seed:     seed,
		laggards: laggards,
		rng:      rand.New(rand.NewPCG(seed, 0x5e3a_ca7)),
		lockstep: seed < 2,
		yielded:  make(chan struct{}),
	}
	switch seed {
	case 0:
		r.order = firstCome
	case 1:
		r.order = lastCome
	default:
		r.order = order(r.rng.IntN(3))
	}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	r.stopCtx, r.stop = context.WithCancel(r.ctx)
	return r
}

// describe says how a seed schedules, for a verdict.
func describe(seed uint64) string {
	r := newRun(seed, false)
	defer r.cancel()
	if r.lockstep {
		return "lockstep, semaphores serve " + r.order.String()
	}
	return "random nudges, semaphores serve " + r.order.String()
}

// Go starts a worker: a goroutine that must return, and return nil, for
// the run to pass. ctx is done at the Deadline.
func (r *Run) Go(who string, f func(ctx context.Context) error) {
	r.start(who, false, f)
}

// Serve starts a server: a goroutine that loops until its ctx is done,
// which happens once every worker has returned. The error it then returns
// is expected; any other error, or a panic, fails the run.
func (r *Run) Serve(who string, f func(ctx context.Context) error) {
	r.start(who, true, f)
}

func (r *Run) start(who string, server bool, f func(ctx context.Context) error) {
	if r.free != nil {
		r.startFree(who, server, f)
		return
	}
	g := &goroutine{name: who, server: server, wake: make(chan struct{})}
	g.slow = r.laggards && !r.lockstep && r.rng.IntN(slowOneIn) == 0
	r.live++
	ctx := r.ctx
	if server {
		ctx = r.stopCtx
	} else {
		r.workers++
	}
	r.ready = append(r.ready, g)
	go func() {
		<-g.wake
		err := r.call(ctx, f)
		if server && r.stopped && !r.deadlock && errors.Is(err, context.Canceled) {
			err = nil
		}
		r.fail(who, err)
		r.live--
		if !server {
			if r.workers--; r.workers == 0 {
				r.stopServers()
			}
		}
		r.yielded <- struct{}{}
	}()
}

// call runs f, turning a panic into an error.
func (r *Run) call(ctx context.Context, f func(ctx context.Context) error) (err error) {
	defer func() {
		switch v := recover().(type) {
		case nil:
		case busyWait:
			err = v
		default:
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return f(ctx)
}

func (r *Run) fail(who string, err error) {
	if err == nil {
		return
	}
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("still waiting at the deadline: deadlock (%w)", err)
	}
	r.errs = append(r.errs, fmt.Errorf("%s: %w", who, err))
}

// schedule runs the goroutines, one at a time, until all have returned.
func (r *Run) schedule() {
	defer r.cancel()
	for r.live > 0 {
		if r.steps++; r.steps == maxSteps {
			r.errs = append(r.errs, fmt.Errorf("still running after %d scheduling points: a goroutine spins", maxSteps))
			r.endInDeadlock()
		}
		if len(r.ready) == 0 && !r.wakeSleepers() {
			r.endInDeadlock()
			continue
		}
		g := r.pick()
		r.current = g
		if r.watch != nil {
			r.watch.turn(g)
		}
		g.wake <- struct{}{}
		<-r.yielded
		r.current = nil
	}
}

// pick takes the goroutine to run next off the ready list.
func (r *Run) pick() *goroutine {
	i := 0
	if !r.lockstep {
		i = r.rng.IntN(len(r.ready))
	}
	g := r.ready[i]
	r.ready = slices.Delete(r.ready, i, i+1)
	return g
}

// wakeSleepers moves the clock to the earliest wake-up, and makes ready
// every goroutine that wakes then. It reports false if none sleeps.
func (r *Run) wakeSleepers() bool {
	if len(r.sleeping) == 0 {
		return false
	}
	next := slices.MinFunc(r.sleeping, func(a, b *goroutine) int { return int(a.wakeAt - b.wakeAt) }).wakeAt
	if next >= Deadline {
		return false
	}
	r.now = next
	r.sleeping = slices.DeleteFunc(r.sleeping, func(g *goroutine) bool {
		if g.wakeAt == next {
			r.ready = append(r.ready, g)
			return true
		}
		return false
	})
	return true
}

// endInDeadlock moves the clock to the Deadline and ends every wait.
func (r *Run) endInDeadlock() {
	r.deadlock = true
	r.now = max(r.now, Deadline)
	r.cancel()
	for _, g := range r.sleeping {
		r.ready = append(r.ready, g)
	}
	r.sleeping = nil
	r.interrupt(func(*goroutine) bool { return true }, context.DeadlineExceeded)
}

// stopServers ends the servers' waits, once the workers have returned.
func (r *Run) stopServers() {
	r.stopped = true
	r.stop()
	r.interrupt(func(g *goroutine) bool { return g.server }, context.Canceled)
}

// interrupt ends the waits of the blocked goroutines that match with err.
func (r *Run) interrupt(match func(*goroutine) bool, err error) {
	for _, g := range slices.Clone(r.blocked) {
		if g.sem == nil || !match(g) { // served meanwhile, or not to interrupt
			continue
		}
		r.blocked = slices.DeleteFunc(r.blocked, func(b *goroutine) bool { return b == g })
		s := g.sem
		g.sem, g.err = nil, err
		r.ready = append(r.ready, g)
		s.forget(g)
	}
}

// verdict judges a finished run: the rules' verdict on the log first, then
// what the goroutines returned.
func (r *Run) verdict(rules func([]Event) error) error {
	slices.SortFunc(r.errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(append([]error{rules(r.events)}, r.errs...)...)
}

// running returns the goroutine that runs now; op names the caller for
// the panic if none does.
func (r *Run) running(op string) *goroutine {
	if r.current == nil {
		panic(fmt.Sprintf("check: %s outside a goroutine of Run.Go or Run.Serve", op))
	}
	return r.current
}

// park hands the turn back to the scheduler and waits for the next.
func (r *Run) park(g *goroutine) {
	r.yielded <- struct{}{}
	<-g.wake
}

// waitErr reports why g may not wait now: the run is deadlocked, or g is a
// server and the workers are done.
func (r *Run) waitErr(g *goroutine, ctx context.Context) error {
	switch {
	case r.deadlock:
		return context.DeadlineExceeded
	case g.server && r.stopped:
		return context.Canceled
	}
	return ctx.Err()
}

// Sleep lets the goroutine that calls it sleep for d of simulated time; the
// others run meanwhile. Sleep(0) lets the scheduler choose who runs next.
func (r *Run) Sleep(d time.Duration) {
	if r.free != nil {
		sleepFree(d)
		return
	}
	g := r.running("Sleep")
	if r.steps > maxSteps {
		panic(fmt.Sprintf("check: %s still runs after %d scheduling points: it spins", g.name, maxSteps))
	}
	if d <= 0 {
		r.ready = append(r.ready, g)
	} else {
		g.wakeAt = r.now + d
		r.sleeping = append(r.sleeping, g)
	}
	r.park(g)
}

// Record logs that who did what, at once.
func (r *Run) Record(who, what string, n int) {
	if r.free != nil {
		return // a free run keeps no log: see free
	}
	if r.current != nil {
		r.current.failedTries = 0
	}
	r.events = append(r.events, Event{At: r.now, Who: who, What: what, N: n})
}

// Act logs that who begins what, works for a seeded number of ticks (at
// least one), and logs that it ends.
func (r *Run) Act(who, what string, n int) { r.Work(who, what, n, Tick+r.nudge()) }

// Work logs that who begins what, works for d, and logs that it ends.
func (r *Run) Work(who, what string, n int, d time.Duration) {
	if r.free != nil {
		r.workFree(d)
		return
	}
	r.Record(who, what, n)
	r.Sleep(d)
	r.events = append(r.events, Event{At: r.now, Who: who, What: what, N: n, End: true})
}

// Rand returns a seeded random number in [0, n), for scenarios that vary
// from seed to seed.
func (r *Run) Rand(n int) int {
	if r.free != nil {
		return randFree(n)
	}
	return r.rng.IntN(n)
}

// nudge returns how long the running goroutine sleeps at a scheduling
// point: one tick in lockstep, 0 to 3 ticks otherwise, slowFactor times
// that for a slow goroutine.
func (r *Run) nudge() time.Duration {
	if r.lockstep || r.free != nil {
		return Tick
	}
	d := time.Duration(r.rng.IntN(4)) * Tick
	if r.current != nil && r.current.slow {
		d *= slowFactor
	}
	return d
}

// pause is a scheduling point: the goroutine sleeps a nudge.
func (r *Run) pause() { r.Sleep(r.nudge()) }
