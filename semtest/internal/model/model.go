// Package model checks a [sem.Semaphore] against a reference model of the
// contract, on seeded random programs run step by step.
//
// # Design
//
// A program is a semaphore of a random small size and a sequence of steps:
// start an Acquire in a new goroutine (with a context that is cancelable,
// times out, is already done, or never is), TryAcquire, Release part of what
// a holder holds, release more than is held, cancel a waiter, let simulated
// time pass, and compound steps that run several of these back to back with
// no settling in between, where a grant and a cancellation race, or where
// another goroutine releases the permits a waiter was just granted before
// the waiter returns. Each
// program runs inside its own testing/synctest bubble. After every step the
// checker waits until every goroutine is durably blocked, observes which
// Acquires returned and with what, and compares with the model.
//
// The model cannot always predict one outcome: a waiter canceled just after
// a Release may keep its grant or give it back, and a semaphore that is not
// FIFO may serve any waiter that fits. Where the contract allows several
// outcomes the model takes the observed one and checks that it was allowed:
// never more than size permits held, no lost wake-up at quiescence, a
// cancellation that came before any permit could be granted wins, an
// Acquire with a done context or a zero or impossible weight returns at
// once, an over-release panics and changes nothing. A FIFO claim turns the
// model exact: it predicts which waiters are served after each step.
//
// When a program fails, [Check] shrinks it (drops steps, splits compound
// steps, lowers weights, sizes and times) to a short program that still fails
// the same way, and reports it in a one-line text form that [Replay]
// accepts, so that the failure can be pasted into a regular test.
//
// # Use
//
//	func TestModel(t *testing.T) {
//		newSem := func(size int64) sem.Semaphore { return mysem.New(size) }
//		model.Check(t, newSem, model.Claims{FIFO: true, NoBarging: true},
//			model.Config{Programs: 2000, Seed: 1})
//	}
//
//	func TestModelRegression(t *testing.T) { // pasted from a failure report
//		model.Replay(t, newSem, model.Claims{FIFO: true, NoBarging: true},
//			"size 1; w1 acquire 1 bg; w2 acquire 1 cancelable; cancel w2 + release w1 1")
//	}
package model

import (
	"fmt"
	"testing"
	"time"

	"github.com/semacat/sem"
)

// Claims are the guarantees beyond the contract that the semaphore declares.
type Claims struct {
	// FIFO: requests of any weight are served in arrival order; a head that
	// does not fit blocks everyone behind it. It implies UnitFIFO.
	FIFO bool

	// UnitFIFO: single-permit requests are served in arrival order.
	UnitFIFO bool

	// NoBarging: TryAcquire fails while an Acquire is waiting.
	NoBarging bool
}

// Config says how many programs [Check] runs and how they are drawn.
type Config struct {
	// Programs is the number of programs to run. Program i uses seed Seed+i.
	Programs int

	// Seed is the seed of the first program.
	Seed uint64

	// MaxSize is the largest semaphore size drawn (sizes are 1..MaxSize).
	// Zero means 4.
	MaxSize int64

	// Steps is the number of random steps per program, before the epilogue
	// that cancels every waiter and releases every permit. Zero means 12.
	Steps int

	// ShrinkTime bounds the wall-clock time spent shrinking a failing
	// program. Zero means defaultShrinkTime.
	ShrinkTime time.Duration

	// Counts, when not nil, receives how often each kind of step and each
	// branch of the nondeterministic outcomes was reached, by name.
	Counts map[string]int
}

// defaultShrinkTime bounds shrinking when Config.ShrinkTime is zero.
const defaultShrinkTime = 10 * time.Second

func (c Config) withDefaults() Config {
	if c.MaxSize == 0 {
		c.MaxSize = 4
	}
	if c.Steps == 0 {
		c.Steps = 12
	}
	if c.ShrinkTime == 0 {
		c.ShrinkTime = defaultShrinkTime
	}
	return c
}

// NewFunc constructs the semaphore under test.
type NewFunc func(size int64) sem.Semaphore

// Failure is a program on which the semaphore disagreed with the model.
type Failure struct {
	Seed     uint64 // seed of the program that failed first
	Program  string // the shrunk program, in the text form Replay accepts
	Original int    // number of steps of the failing program before shrinking
	Step     int    // 1-based step of Program at which the check failed; 0 for the epilogue
	StepText string // that step, or a description of the epilogue's step
	Kind     string // the promise that was broken, e.g. "fifo" or "lost-wakeup"
	Msg      string // what differed from the model
}

func (f *Failure) Error() string {
	return fmt.Sprintf("model: seed %d: %s: %s: %s\n\treplay (shrunk from %d steps): %q",
		f.Seed, f.Where(), f.Kind, f.Msg, f.Original, f.Program)
}

// Where names the step at which the check failed.
func (f *Failure) Where() string {
	if f.Step == 0 {
		return "epilogue (" + f.StepText + ")"
	}
	return fmt.Sprintf("step %d (%s)", f.Step, f.StepText)
}

// Check runs cfg.Programs random programs against the semaphores built by
// newSem and reports, with t.Errorf, the first program on which they
// disagree with the model of the contract and of the claims c, shrunk.
func Check(t *testing.T, newSem NewFunc, c Claims, cfg Config) {
	t.Helper()
	if f := Find(t, newSem, c, cfg); f != nil {
		t.Error(f)
	}
}

// Find is Check without the report: it returns the first failure, shrunk,
// or nil. t only hosts the synctest bubbles; Find never fails it.
func Find(t *testing.T, newSem NewFunc, c Claims, cfg Config) *Failure {
	cfg = cfg.withDefaults()
	c = c.normal()
	for i := range cfg.Programs {
		seed := cfg.Seed + uint64(i)
		p, f := runRandom(t, newSem, c, cfg, seed)
		if f != nil {
			f = shrink(t, newSem, c, p, f, time.Now().Add(cfg.ShrinkTime))
			f.Seed, f.Original = seed, len(p.steps)
			return f
		}
	}
	return nil
}

// Replay runs one program, in the text form of a failure report, up to
// replayRuns times, and reports with t.Errorf the first run in which the
// semaphore disagrees with the model.
func Replay(t *testing.T, newSem NewFunc, c Claims, program string) {
	t.Helper()
	f, err := ReplayFailure(t, newSem, c, program)
	if err != nil {
		t.Fatal(err)
	}
	if f != nil {
		t.Error(f)
	}
}

// replayRuns is how many times a replay runs its program before it says the
// program passes. The parts of a compound step ("cancel w2 + release w1 1")
// run at once, so the order in which they land can differ from run to run,
// and a program that failed once may pass the next time; a bug it shows once
// in a handful of runs shows at least once in this many.
const replayRuns = 20

// ReplayFailure is Replay without the report: it returns the first failure
// in up to replayRuns runs of the program, or nil, and an error if the
// program cannot be parsed. An operation that does not apply in a run (a
// release by a holder that holds too little) is skipped.
func ReplayFailure(t *testing.T, newSem NewFunc, c Claims, program string) (*Failure, error) {
	p, err := parse(program)
	if err != nil {
		return nil, err
	}
	for range replayRuns {
		if f, _ := runFixed(t, newSem, c.normal(), p); f != nil {
			return f, nil
		}
	}
	return nil, nil
}

func (c Claims) normal() Claims {
	c.UnitFIFO = c.UnitFIFO || c.FIFO
	return c
}
