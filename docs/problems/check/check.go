// Package check judges solutions to the synchronization problems of
// docs/problems. A [Problem] is a scenario (which goroutines run, what they
// call, and when) and the rules a run must keep. [Problem.Verify] runs the
// scenario once per seed and records what the goroutines do as a log of
// [Event]s with the run's simulated time; the rules then read the log.
//
// A verdict is a function of the seed and the solution, nothing else: the
// same solution gets the same verdict, run after run, on any machine and
// any GOMAXPROCS. Three things make it so.
//
//   - One goroutine at a time. The goroutines of a run take turns: a
//     goroutine runs until it reaches a scheduling point (every Acquire,
//     Release and TryAcquire of the semaphores [Run.NewSemaphore] builds,
//     and every [Run.Sleep], [Run.Act] and [Run.Work]), and the run's
//     scheduler then chooses who goes next. The Go scheduler never chooses.
//   - The choices come from the seed. At each scheduling point the
//     goroutine sleeps a seeded number of ticks, or none; among the
//     goroutines ready at the same simulated instant the scheduler picks
//     one by the seed; and each semaphore serves its waiters in the order
//     the seed gives the run (first come, last come, or at random). Seed 0
//     sleeps one tick at every point and serves everyone first come, first
//     served: the goroutines move in lockstep. Seed 1 does the same but
//     serves the last comer first. A scenario sets its classic traps by
//     the clock, and the seeds vary the interleavings around them. If the
//     problem allows it ([Problem.Laggards]), some runs make a goroutine
//     slow, as one the OS descheduled: its nudges are several times longer.
//   - A deadlock is a verdict, not a hang. When no goroutine can run and
//     none sleeps, the clock jumps to [Deadline], every waiting Acquire
//     returns context.DeadlineExceeded, and the run reports who was still
//     waiting.
//
// A failing verdict names its seed, and the command that replays it with
// the SEMACAT_ and CHECK_ variables the test ran with. Set the environment
// variable CHECK_SEED to that seed to run that run alone, again, with its
// whole log printed (go test -v); CHECK_SEEDS=n makes n runs instead of
// the problem's own count.
//
// A solution must wait only on its semaphores: a goroutine blocked on
// anything else holds up the whole run. If it waits on a channel, a
// sync.WaitGroup or a select, the run rejects the solution with its name;
// if it waits on a sync.Mutex or spins on a plain variable, a watchdog on
// real time rejects it after [DefaultStall] (CHECK_STALL sets another
// limit) and ends the test binary, as nothing can stop the goroutine.
// A wait on something else that ends by itself (time.Sleep, a channel
// another goroutine of the solution sends on) is not seen at all: the
// seeded runs are blind to it, as they are to data races ([Problem.Test]
// looks for those in free runs under go test -race). A goroutine whose TryAcquire
// fails 16 times in a row, with nothing else between, busy-waits, and the
// run rejects it.
//
// Goroutines that serve forever (a barber, a cook, Santa) are started with
// [Run.Serve]: their context is done once every goroutine started with
// [Run.Go] has returned, and the error they then return is expected.
package check

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
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
	// they call the solution and record what they do. It must not wait.
	Scenario func(r *Run, solution S)
	// Rules reports the first broken rule of a complete log, or nil.
	Rules func(log []Event) error
	// Laggards lets runs with random nudges make a goroutine slow (one in
	// eight, at random), so that it falls far behind the others. Leave it
	// off when the rules give a step a bounded number of ticks.
	Laggards bool
}

// Verify runs the scenario once per seed and returns the first run's
// failure, with how many runs failed: a broken rule, or a goroutine that
// returned an error or panicked (a deadlock shows as goroutines still
// waiting at the Deadline). It returns nil if every run kept every rule.
// The environment variables CHECK_SEED and CHECK_SEEDS choose the seeds
// instead (see the package documentation).
func (p Problem[S]) Verify(t *testing.T, solution S) error {
	t.Helper()
	seeds, replay := p.seeds(t)
	var first error
	failed := 0
	for _, seed := range seeds {
		log, err := p.run(t, seed, solution)
		if replay {
			for _, e := range log {
				t.Logf("%v", e)
			}
		}
		if err == nil {
			continue
		}
		failed++
		if first == nil {
			first = fmt.Errorf("seed %d (%s): %w\n%s", seed, describe(seed), err, replayLine(t, seed))
		}
	}
	if first != nil {
		return fmt.Errorf("%w\n(%d of %d runs failed)", first, failed, len(seeds))
	}
	return nil
}

// run makes the run of one seed in a testing/synctest bubble, and returns
// its log and its verdict (see watchdog.go for the runs that end without
// one of the scheduler's own).
func (p Problem[S]) run(t *testing.T, seed uint64, solution S) (log []Event, err error) {
	w := watch(t, func(who string, stall time.Duration) string {
		return fmt.Sprintf("seed %d (%s): %s kept the turn for %v of real time without reaching a scheduling point: it waits on something other than the semaphores the run gave it (a sync.Mutex, a sync.Cond), or spins on a plain variable; use only the run's semaphores, and wait with Acquire\n%s",
			seed, describe(seed), who, stall, replayLine(t, seed))
	})
	defer w.stop()
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if e, ok := v.(error); !ok || !strings.HasPrefix(e.Error(), "deadlock: ") {
			panic(v)
		}
		// Only the bubble's deadlock: the blocked goroutines stay blocked.
		err = fmt.Errorf("%s waited on something other than the semaphores the run gave it (a channel, a sync.WaitGroup, a select): no other goroutine of the run goes while it waits, so it waits forever; use only the run's semaphores", w.holder())
	}()
	synctest.Test(t, func(*testing.T) {
		r := newRun(seed, p.Laggards)
		r.watch = w
		p.Scenario(r, solution)
		r.schedule()
		log = r.events
		err = r.verdict(p.Rules)
	})
	return log, err
}

// replayLine says how to make the run of seed again, alone, with its log.
func replayLine(t *testing.T, seed uint64) string {
	root, pkg := packageDir()
	return fmt.Sprintf("(run it again alone, with its log, from %s: %sCHECK_SEED=%d go test -v -run '%s' %s)", root, replayEnv(), seed, runPattern(t.Name()), pkg)
}

// packageDir returns the directory go test runs in (the directory of the
// nearest go.work above the test's package, or else of its go.mod) and
// the package's directory relative to it: "./docs/problems/workspace".
// A test binary runs in its package's directory.
func packageDir() (root, pkg string) {
	wd, err := os.Getwd()
	if err != nil {
		return "the package's directory", "."
	}
	for _, file := range []string{"go.work", "go.mod"} {
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, file)); err == nil {
				rel, err := filepath.Rel(d, wd)
				if err != nil {
					return wd, "."
				}
				return d, "./" + filepath.ToSlash(rel) // "./." if d is wd: still a directory

			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return wd, "."
}

// replayEnv returns the SEMACAT_ and CHECK_ variables of this run's
// environment, but the seeds' and the table's, as "NAME=value " words: the
// replay needs them too (a workspace test skips without SEMACAT_EXERCISE).
func replayEnv() string {
	var b strings.Builder
	for _, kv := range slices.Sorted(slices.Values(os.Environ())) {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "CHECK_SEED", name == "CHECK_SEEDS", name == "CHECK_TABLE":
		case strings.HasPrefix(name, "SEMACAT_"), strings.HasPrefix(name, "CHECK_"):
			b.WriteString(shellQuote(kv) + " ")
		}
	}
	return b.String()
}

// plainWord matches an environment entry a shell reads as it is.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_]+=[A-Za-z0-9_./:,+-]*$`)

// shellQuote quotes kv for a shell if it holds anything but plain words.
func shellQuote(kv string) string {
	if plainWord.MatchString(kv) {
		return kv
	}
	return "'" + strings.ReplaceAll(kv, "'", `'\''`) + "'"
}

// runPattern returns the go test -run pattern that matches the test named
// name and no other: "^TestX$/^right$".
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// seeds returns the seeds to run, and whether they replay one run.
func (p Problem[S]) seeds(t *testing.T) (seeds []uint64, replay bool) {
	if s := os.Getenv("CHECK_SEED"); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("check: CHECK_SEED=%q is not a seed: want a number such as 7", s)
		}
		return []uint64{seed}, true
	}
	n := p.Seeds
	if s := os.Getenv("CHECK_SEEDS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			t.Fatalf("check: CHECK_SEEDS=%q is not a count of runs: want a number such as 50", s)
		}
	}
	for seed := range n {
		seeds = append(seeds, uint64(seed))
	}
	return seeds, false
}

// Test fails t with the verdict if a run of solution breaks a rule: the
// one call a student's test makes. Under the race detector (go test
// -race), once the seeded runs pass, it makes free runs of the solution
// too (see [Problem.FreeRun]), so that a data race in it is reported.
func (p Problem[S]) Test(t *testing.T, solution S) {
	t.Helper()
	if err := p.Verify(t, solution); err != nil {
		t.Fatalf("rejected:\n%v", err)
	}
	if !raceEnabled {
		return
	}
	for seed := range uint64(freeRuns) {
		if err := p.FreeRun(t, seed, solution); err != nil {
			t.Fatalf("rejected: the seeded runs passed, but %v\n(a free run has no seed to replay: its goroutines run at once, as the Go scheduler lets them)", err)
		}
	}
}
