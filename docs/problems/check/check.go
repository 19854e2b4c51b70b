// Package check judges solutions to the synchronization problems of
// docs/problems. A [Problem] is a scenario (which goroutines run, what they
// call, and when) and the rules a run must keep. [Problem.Verify] runs the
// scenario once per seed, each run in its own testing/synctest bubble, and
// records what the goroutines do as a log of [Event]s with the bubble's
// simulated time; the rules then read the log.
//
// Three things make a verdict deterministic instead of a matter of luck.
//
//   - Time is simulated. A goroutine that sleeps, or does work with
//     [Run.Act], lets every other goroutine run until it blocks before the
//     clock moves, so "arrives at time t" means after everything that
//     could happen before t has happened.
//   - The semaphores are nudged. A solution builds its semaphores with
//     [Run.NewSemaphore], which takes them from one of the [Strategies]
//     (a different one for each seed) and sleeps a seeded number of ticks
//     before and after each Acquire and after each Release. Seed 0 sleeps
//     one tick every time, which moves all goroutines in lockstep; the
//     other seeds pick 0 to 3 ticks at random. A wrong solution whose bug
//     needs an unlucky interleaving meets it within a few seeds.
//   - A deadlock is a verdict, not a hang. Every goroutine gets a context
//     that is done at [Deadline]. When every goroutine of a bubble is
//     blocked, the simulated clock jumps straight there, each waiting
//     Acquire returns the context's error, and the run reports who was
//     still waiting.
//
// A solution must wait only on its semaphores, with the context it is
// given: a goroutine blocked on anything else when the clock runs out
// makes synctest fail the test itself, with no verdict.
//
// Goroutines that serve forever (a barber, a cook, Santa) are started with
// [Run.Serve]: their context is done once every goroutine started with
// [Run.Go] has returned, and the error they then return is expected.
package check

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// Tick is the unit of the nudges and of [Run.Act]'s work, in simulated time.
const Tick = time.Millisecond

// Deadline is how long, in simulated time, a run may take. A run still
// going then is deadlocked: the clock only gets that far when every
// goroutine is blocked.
const Deadline = time.Hour

// Event is one thing a goroutine did, as recorded by [Run.Record] or
// [Run.Act].
type Event struct {
	At   time.Duration // simulated time since the run began
	Who  string        // the goroutine, as named to Run.Go or Run.Serve
	What string        // the action, named by the problem
	N    int           // a round, a count or a kind, as the problem uses it
	End  bool          // the end of an action begun by an earlier event
}

// String formats e for a verdict: its time, then "reader 2: read 0", with " ends"
// for the end of an action.
func (e Event) String() string {
	end := ""
	if e.End {
		end = " ends"
	}
	return fmt.Sprintf("%v %s: %s %d%s", e.At, e.Who, e.What, e.N, end)
}

// Problem is a scenario that runs a solution of type S, and the rules its
// runs must keep.
type Problem[S any] struct {
	// Seeds is how many runs Verify makes, each with its own seed.
	Seeds int
	// Scenario starts the goroutines of one run with r.Go and r.Serve;
	// they call the solution and record what they do.
	Scenario func(r *Run, solution S)
	// Rules reports the first broken rule of a complete log, or nil.
	Rules func(log []Event) error
}

// Verify runs the scenario once per seed and returns the first run's
// failure, with how many runs failed: a broken rule, or a goroutine that
// returned an error or panicked (a deadlock shows as goroutines still
// waiting at the Deadline). It returns nil if every run kept every rule.
func (p Problem[S]) Verify(t *testing.T, solution S) error {
	var first error
	failed := 0
	for seed := range p.Seeds {
		var err error
		synctest.Test(t, func(*testing.T) {
			r := newRun(uint64(seed))
			p.Scenario(r, solution)
			err = r.finish(p.Rules)
		})
		if err == nil {
			continue
		}
		failed++
		if first == nil {
			first = fmt.Errorf("seed %d (%s): %w", seed, Strategies[seed%len(Strategies)].Name, err)
		}
	}
	if first != nil {
		return fmt.Errorf("%w\n(%d of %d runs failed)", first, failed, p.Seeds)
	}
	return nil
}

// Run is one run of a scenario.
type Run struct {
	seed     uint64
	strategy Strategy
	start    time.Time
	ctx      context.Context // done at the Deadline
	cancel   context.CancelFunc
	stopCtx  context.Context // done once the workers have returned
	stop     context.CancelFunc
	workers  sync.WaitGroup
	servers  sync.WaitGroup

	mu     sync.Mutex
	rng    *rand.Rand
	events []Event
	errs   []error
}

func newRun(seed uint64) *Run {
	r := &Run{
		seed:     seed,
		strategy: Strategies[seed%uint64(len(Strategies))],
		start:    time.Now(),
		rng:      rand.New(rand.NewPCG(seed, seed)),
	}
	r.ctx, r.cancel = context.WithTimeout(context.Background(), Deadline)
	r.stopCtx, r.stop = context.WithCancel(r.ctx)
	return r
}

// Go starts a worker: a goroutine that must return, and return nil, for
// the run to pass. ctx is done at the Deadline.
func (r *Run) Go(who string, f func(ctx context.Context) error) {
	r.workers.Go(func() { r.fail(who, r.call(r.ctx, f)) })
}

// Serve starts a server: a goroutine that loops until its ctx is done,
// which happens once every worker has returned. The error it then returns
// is expected; any other error, or a panic, fails the run.
func (r *Run) Serve(who string, f func(ctx context.Context) error) {
	r.servers.Go(func() {
		err := r.call(r.stopCtx, f)
		if r.stopCtx.Err() != nil && r.ctx.Err() == nil && errors.Is(err, context.Canceled) {
			return
		}
		r.fail(who, err)
	})
}

// call runs f, turning a panic into an error.
func (r *Run) call(ctx context.Context, f func(ctx context.Context) error) (err error) {
	defer func() {
		if v := recover(); v != nil {
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
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Errorf("%s: %w", who, err))
}

// finish waits for the workers, stops the servers, and judges the run:
// the rules' verdict on the log first, then what the goroutines returned.
func (r *Run) finish(rules func([]Event) error) error {
	r.workers.Wait()
	r.stop()
	r.servers.Wait()
	r.cancel()
	slices.SortFunc(r.errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(append([]error{rules(r.events)}, r.errs...)...)
}

// Record logs that who did what, at once.
func (r *Run) Record(who, what string, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, Event{At: time.Since(r.start), Who: who, What: what, N: n})
}

// Act logs that who begins what, works for a seeded number of ticks (at
// least one), and logs that it ends.
func (r *Run) Act(who, what string, n int) { r.Work(who, what, n, Tick+r.nudge()) }

// Work logs that who begins what, works for d, and logs that it ends.
func (r *Run) Work(who, what string, n int, d time.Duration) {
	r.Record(who, what, n)
	time.Sleep(d)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, Event{At: time.Since(r.start), Who: who, What: what, N: n, End: true})
}

// Rand returns a seeded random number in [0, n), for scenarios that vary
// from seed to seed.
func (r *Run) Rand(n int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rng.IntN(n)
}

// nudge returns how long to sleep at a nudge: one tick on seed 0, 0 to 3
// ticks on the others.
func (r *Run) nudge() time.Duration {
	if r.seed == 0 {
		return Tick
	}
	return time.Duration(r.Rand(4)) * Tick
}

func (r *Run) pause() { time.Sleep(r.nudge()) }
