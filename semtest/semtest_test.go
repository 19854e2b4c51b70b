package semtest_test

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/semtest"
	"github.com/semacat/sem/semtest/internal/reftest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// ref's panics name the package "ref"; its type lives in package reftest.
var refName = semtest.WithPackageName("ref")

// A correct implementation passes, whatever it honestly claims, and
// whichever optional interfaces it offers.
func TestRunPassesCorrect(t *testing.T) {
	t.Run("Plain", func(t *testing.T) {
		semtest.Run(t, reftest.New(false, reftest.None), semtest.Guarantees{}, refName,
			semtest.WithNewAvailable(reftest.NewAvailable(false, reftest.None)))
	})
	t.Run("FIFO", func(t *testing.T) {
		semtest.Run(t, reftest.New(true, reftest.None), semtest.Guarantees{FIFO: true, NoBarging: true, NoStarvation: true}, refName,
			semtest.WithNewAvailable(reftest.NewAvailable(true, reftest.None)))
	})
	t.Run("Handoff", func(t *testing.T) {
		semtest.Run(t, reftest.NewHandoff(reftest.HandoffKeeps), semtest.Guarantees{FIFO: true, NoBarging: true}, refName)
	})
	t.Run("Bare", func(t *testing.T) {
		semtest.Run(t, func(size int64) sem.Semaphore { return bare{reftest.New(false, reftest.None)(size)} }, semtest.Guarantees{}, refName)
	})
}

// bare hides every method of a semaphore but the contract's.
type bare struct{ sem.Semaphore }

// refAvailable gives the suite ref's NewAvailable, built with bug.
func refAvailable(bug reftest.Bug) []semtest.Option {
	return []semtest.Option{semtest.WithNewAvailable(reftest.NewAvailable(false, bug))}
}

// Guarantees the broken implementations claim.
var (
	none         = semtest.Guarantees{}
	fifo         = semtest.Guarantees{FIFO: true}
	unitFIFO     = semtest.Guarantees{UnitFIFO: true}
	noBarging    = semtest.Guarantees{NoBarging: true}
	noStarvation = semtest.Guarantees{NoStarvation: true}
)

// broken lists implementations that break one promise each, and the subtest
// that must report it. runs > 1 reruns the child for a bug that shows only
// in some interleavings; race marks a bug only the race detector sees.
var broken = []struct {
	name    string
	newSem  semtest.NewFunc
	claims  semtest.Guarantees
	failing string // the subtest of semtest.Run that must fail
	runs    int
	race    bool
	opts    []semtest.Option
}{
	{"overadmit", reftest.New(false, reftest.OverAdmit), none, "Acquire/BlocksWhenFull", 1, false, nil},
	{"overadmit-under-load", reftest.New(false, reftest.OverAdmit), none, "Stress/Hammer", 1, false, nil},
	{"lost-wakeup", reftest.New(false, reftest.LostWakeup), none, "Liveness/ReleaseWakesAllThatFit", 1, false, nil},
	{"no-wakeup", reftest.New(false, reftest.NoWakeup), none, "Acquire/BlocksWhenFull", 1, false, nil},
	{"acquire-panics", reftest.New(false, reftest.AcquirePanics), none, "Acquire/HoldsPermits", 1, false, nil},
	{"ignores-cancel", reftest.New(false, reftest.IgnoreCancel), none, "Cancel/WhileWaiting", 1, false, nil},
	{"ignores-timeout", reftest.New(false, reftest.IgnoreCancel), none, "Cancel/Timeout", 1, false, nil},
	{"done-context-acquires", reftest.New(false, reftest.DoneContext), none, "Cancel/AlreadyDone", 1, false, nil},
	{"done-context-acquires-n>1", reftest.New(false, reftest.DoneContextBig), none, "Cancel/AlreadyDone", 1, false, nil},
	{"grant-after-cancel", reftest.New(false, reftest.GrantAfterDone), none, "Cancel/BeforeGrant", 1, false, nil},
	// Cancel/BeforeGrant's waiter asks for 2; only the model's random
	// weights reach this one.
	{"unit-grant-after-cancel", reftest.New(false, reftest.UnitGrantAfterDone), none, "Model", 1, false, nil},
	{"gives-back-released-grant", reftest.NewHandoff(reftest.HandoffGivesBack), fifo, "Cancel/GrantedThenReleased", 1, false, nil},
	{"canceled-head-strands", reftest.New(true, reftest.Strand), fifo, "Cancel/HeadDoesNotStrand", 1, false, nil},
	{"canceled-head-strands-one-behind", reftest.New(true, reftest.Strand), fifo, "Cancel/BeforeGrantPassesOn", 1, false, nil},
	{"over-release-no-panic", reftest.New(false, reftest.NoPanic), none, "BadInput/OverRelease/Fresh", 1, false, nil},
	{"over-release-panics-late", reftest.New(false, reftest.PanicLate), none, "BadInput/OverRelease/WaiterQueued", 1, false, nil},
	{"over-release-counts-gathered", reftest.NewGather, none, "BadInput/OverRelease/WaiterPartlyServed", 1, false, nil},
	{"over-release-check-then-act", reftest.New(false, reftest.CheckThenAct), none, "BadInput/OverRelease/Concurrent", 3, false, nil},
	{"new-panic-without-package", reftest.New(false, reftest.NoPackageName), none, "BadInput/New", 1, false, nil},
	{"weight-panic-without-package", reftest.New(false, reftest.NoPackageName), none, "BadInput/NegativeWeight/Acquire", 1, false, nil},
	{"over-release-without-package", reftest.New(false, reftest.NoPackageName), none, "BadInput/OverRelease/Fresh", 1, false, nil},
	{"exceeds-size-blocks", reftest.New(false, reftest.ExceedsBlocks), none, "ExceedsSize/Acquire", 1, false, nil},
	{"leaks-goroutines", reftest.New(false, reftest.Leak), none, "Stress/Goroutines", 1, false, nil},
	{"leaks-goroutines-never-canceled", reftest.New(false, reftest.Leak), none, "Leaks/Goroutines", 1, false, nil},
	{"leaks-afterfunc", reftest.New(false, reftest.LeakAfterFunc), none, "Leaks/AfterFunc", 1, false, nil},
	{"wrong-available", reftest.New(false, reftest.AvailableMinusWaiting), none, "Snapshot/SizeAvailable", 1, false, nil},
	{"racy-release", reftest.New(false, reftest.RacyRelease), none, "MemoryModel/ReleaseBeforeAcquire", 1, true, nil},
	{"racy-tryacquire", reftest.New(false, reftest.RacyTryAcquire), none, "MemoryModel/ReleaseBeforeTryAcquire", 1, true, nil},
	{"barging", reftest.New(false, reftest.None), noBarging, "Guarantees/NoBarging/Parked", 1, false, nil},
	{"barging-between-grants", reftest.NewGather, noBarging, "Guarantees/NoBarging/PartlyServed", 3, false, nil},
	{"not-fifo", reftest.New(false, reftest.None), fifo, "Guarantees/FIFO", 1, false, nil},
	{"not-unit-fifo", reftest.New(false, reftest.None), unitFIFO, "Guarantees/UnitFIFO", 1, false, nil},
	{"starves-large", reftest.New(false, reftest.None), noStarvation, "Guarantees/NoStarvation", 1, false, nil},
	{"resize-wakes-nobody", reftest.New(false, reftest.ResizeNoWake), none, "Resize/Grow", 1, false, nil},
	{"resize-loses-fifo", reftest.New(true, reftest.ResizeLosesFIFO), fifo, "Resize/GrowFIFO", 1, false, nil},
	{"shrink-revokes-held", reftest.New(false, reftest.ShrinkRevokes), none, "Resize/ShrinkKeepsHeld", 1, false, nil},
	{"shrink-keeps-large-waiter", reftest.New(true, reftest.ShrinkKeepsLarge), fifo, "Resize/ShrinkFailsLargeWaiter", 1, false, nil},
	{"exceeds-checks-old-size", reftest.New(false, reftest.ExceedsOldSize), none, "Resize/ShrinkLaterExceeds", 1, false, nil},
	{"size-stale-after-resize", reftest.New(false, reftest.SizeStale), none, "Resize/Size", 1, false, nil},
	{"available-clamped-after-shrink", reftest.New(false, reftest.AvailableClamped), none, "Resize/AvailableAfterShrink", 1, false, nil},
	{"resize-accepts-zero", reftest.New(false, reftest.ResizeNoCheck), none, "Resize/BadSize", 1, false, nil},
	{"over-release-unchecked-after-shrink", reftest.New(false, reftest.ShrinkNoPanic), none, "Resize/OverRelease", 1, false, nil},
	{"exceeds-names-old-size", reftest.New(false, reftest.ExceedsNamesBuilt), none, "Resize/ShrinkFailedWaiter", 1, false, nil},
	{"shrink-failed-stays-waiting", reftest.New(false, reftest.ShrinkStrands), none, "Resize/ShrinkFailedWaiter", 1, false, nil},
	{"resize-reopens-closed", reftest.New(false, reftest.ResizeReopens), none, "Resize/KeepsClosed", 1, false, nil},
	{"close-wakes-nobody", reftest.New(false, reftest.CloseNoWake), none, "Close/FailsWaiters", 1, false, nil},
	{"close-skips-background-waiter", reftest.New(false, reftest.CloseSkipsNoDone), none, "Close/FailsWaiterWithoutDone", 1, false, nil},
	{"close-serves-free-permits", reftest.New(false, reftest.CloseFreePermits), none, "Close/LaterAcquire", 1, false, nil},
	{"close-before-done-context", reftest.New(false, reftest.ClosedBeforeDone), none, "Close/LaterAcquire", 1, false, nil},
	{"close-serves-zero", reftest.New(false, reftest.CloseServesZero), none, "Close/ZeroWeight", 1, false, nil},
	{"close-serves-tryacquire", reftest.New(false, reftest.CloseTry), none, "Close/TryAcquire", 1, false, nil},
	{"close-refuses-release", reftest.New(false, reftest.CloseRelease), none, "Close/Release", 1, false, nil},
	{"close-twice-errs", reftest.New(false, reftest.CloseTwice), none, "Close/Idempotent", 1, false, nil},
	{"close-leaks-afterfunc", reftest.New(false, reftest.CloseLeak), none, "Close/Leaks", 1, false, nil},
	{"waiting-miscounts-permits", reftest.New(false, reftest.WaitingPermits), none, "Observe/Waiting", 1, false, nil},
	{"onwait-every-wakeup", reftest.New(false, reftest.OnWaitEveryWake), none, "Observe/OnWaitGranted", 1, false, nil},
	{"onwait-err-nil", reftest.New(false, reftest.OnWaitNilErr), none, "Observe/OnWaitCanceled", 1, false, nil},
	{"onwait-skips-closed", reftest.New(false, reftest.OnWaitSkipsClosed), none, "Observe/OnWaitClosed", 1, false, nil},
	{"onwait-skips-exceeds", reftest.New(false, reftest.OnWaitSkipsExceeds), none, "Observe/OnWaitExceeds", 1, false, nil},
	{"onwait-reports-every-acquire", reftest.New(false, reftest.OnWaitAlways), none, "Observe/OnWaitNotWaited", 1, false, nil},
	{"onwait-nil-ignored", reftest.New(false, reftest.OnWaitNilIgnored), none, "Observe/OnWaitNil", 1, false, nil},
	{"available-ignored", reftest.New(false, reftest.None), none, "NewAvailable/StartsWithAvailable", 1, false, refAvailable(reftest.AvailIgnored)},
	{"available-zero-means-all", reftest.New(false, reftest.None), none, "NewAvailable/Signal", 1, false, refAvailable(reftest.AvailZeroMeansAll)},
	{"available-debt-counted-twice", reftest.New(false, reftest.None), none, "NewAvailable/OverRelease", 1, false, refAvailable(reftest.AvailDoubleDebt)},
	{"available-above-size-accepted", reftest.New(false, reftest.None), none, "NewAvailable/BadInput", 1, false, refAvailable(reftest.AvailNoCheck)},
}

// The suite catches each broken implementation by name. Each one runs in a
// child process (this test binary, re-executed), because a broken semaphore
// may fail in ways that end a process, and its failures must not fail this
// test.
func TestRunCatchesBroken(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, b := range broken {
		t.Run(b.name, func(t *testing.T) {
			if b.race && !raceEnabled {
				t.Skip("only the race detector sees this bug; run with -race")
			}
			t.Parallel()
			pattern := "^TestBrokenTarget$/^" + strings.ReplaceAll(b.failing, "/", "$/^") + "$"
			cmd := exec.Command(exe, "-test.run="+pattern, "-test.v", fmt.Sprintf("-test.count=%d", b.runs))
			cmd.Env = append(os.Environ(), "SEMTEST_BROKEN="+b.name, "SEMTEST_SHORT_STALL=1")
			out, err := cmd.CombinedOutput()
			require.Error(t, err, "the suite passed a semaphore with bug %q:\n%s", b.name, out)
			assert.Contains(t, string(out), "--- FAIL: TestBrokenTarget/"+b.failing,
				"bug %q was not reported by subtest %s:\n%s", b.name, b.failing, out)
		})
	}
}

// TestBrokenTarget runs the suite against the broken implementation named by
// $SEMTEST_BROKEN; it is the child half of TestRunCatchesBroken.
func TestBrokenTarget(t *testing.T) {
	name := os.Getenv("SEMTEST_BROKEN")
	if name == "" {
		t.Skip("run by TestRunCatchesBroken")
	}
	opts := []semtest.Option{refName}
	if os.Getenv("SEMTEST_BROKEN_QUICK") != "" { // the whole suite, for TestEveryFamilyReports
		opts = append(opts, semtest.WithStress(4, 200), semtest.WithPrograms(200))
	}
	if name == "none" {
		semtest.Run(t, reftest.New(false, reftest.None), none, opts...)
		return
	}
	// Where the parent only asks whether a family fails, a broken
	// implementation that stalls is reported after a second of no progress
	// instead of the default limit: the stuck rows (lost-wakeup, no-wakeup)
	// then cost seconds, not ten. A run that needs every other family to
	// pass (TestModelCatchesWhatRowsMiss) keeps the default, which a loaded
	// machine cannot mistake for a stall, and a correct one never gets the
	// shorter limit.
	if os.Getenv("SEMTEST_SHORT_STALL") != "" {
		opts = append(opts, semtest.WithStallLimit(time.Second))
	}
	for _, b := range broken {
		if b.name == name {
			semtest.Run(t, b.newSem, b.claims, append(opts, b.opts...)...)
			return
		}
	}
	t.Fatalf("no broken implementation named %q", name)
}

// A broken implementation never ends the suite early: whatever it does
// (panic inside Acquire, leave goroutines blocked, never return), the run
// completes, every family reports, and the binary exits as a plain test
// failure, not a crash. The families a correct implementation reports are
// the ones every broken one must report too.
func TestEveryFamilyReports(t *testing.T) {
	if testing.Short() || os.Getenv("SEMACAT_LONG") == "" {
		t.Skip("runs the whole suite once per broken implementation: set SEMACAT_LONG=1 (make test does)")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	family := regexp.MustCompile(`(?m)^    --- (?:PASS|FAIL|SKIP): TestBrokenTarget/(\S+) \(`)
	runAll := func(name string) (families []string, out string, exit int) {
		cmd := exec.Command(exe, "-test.run=^TestBrokenTarget$", "-test.v")
		cmd.Env = append(os.Environ(), "SEMTEST_BROKEN="+name, "SEMTEST_BROKEN_QUICK=1", "SEMTEST_SHORT_STALL=1")
		b, err := cmd.CombinedOutput()
		if e, ok := err.(*exec.ExitError); ok {
			exit = e.ExitCode()
		}
		for _, m := range family.FindAllStringSubmatch(string(b), -1) {
			families = append(families, m[1])
		}
		return families, string(b), exit
	}
	want, out, exit := runAll("none")
	require.Zero(t, exit, "the suite failed a correct implementation:\n%s", out)
	require.GreaterOrEqual(t, len(want), 16, "too few families reported:\n%s", out)
	for _, b := range broken {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			got, out, exit := runAll(b.name)
			assert.Equal(t, want, got, "families reported for bug %q:\n%s", b.name, out)
			assert.NotContains(t, out, "\npanic: ", "the run of bug %q crashed:\n%s", b.name, out)
			switch {
			case b.failing == "Model" || b.runs > 1:
				// The quick suite runs fewer programs, once: a bug that shows
				// only in some programs or interleavings may pass it, which
				// TestRunCatchesBroken's full runs rule out. Here it must
				// only end as a plain test run, failed or not, never a crash.
				assert.Contains(t, []int{0, 1}, exit, "the run of bug %q crashed:\n%s", b.name, out)
			case !b.race || raceEnabled:
				assert.Equal(t, 1, exit, "the run of bug %q did not end as a plain test failure:\n%s", b.name, out)
			}
		})
	}
}

// The Model family catches a bug that every other row of the suite misses,
// and its report says how to replay the shrunk program: the command it
// prints, run as printed, fails the same way.
func TestModelCatchesWhatRowsMiss(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	child := func(env []string, run string) string {
		cmd := exec.Command(exe, "-test.run="+run, "-test.v")
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		require.Error(t, err, "the suite passed a semaphore with bug unit-grant-after-cancel:\n%s", out)
		return string(out)
	}
	out := child([]string{"SEMTEST_BROKEN=unit-grant-after-cancel"}, "^TestBrokenTarget$")
	failed := regexp.MustCompile(`--- FAIL: TestBrokenTarget/(\S+)`).FindAllStringSubmatch(out, -1)
	require.Len(t, failed, 1, "want only the Model family to fail:\n%s", out)
	assert.Equal(t, "Model", failed[0][1])

	replay := regexp.MustCompile(`SEMTEST_REPLAY='([^']+)' go test -run '([^']+)' \.`).FindStringSubmatch(out)
	require.NotNil(t, replay, "the report prints no replay command:\n%s", out)
	assert.Equal(t, "^TestBrokenTarget$/^Model$", replay[2])
	again := child([]string{"SEMTEST_BROKEN=unit-grant-after-cancel", "SEMTEST_REPLAY=" + replay[1]}, replay[2])
	assert.Contains(t, again, "cancel-first", "the replayed program did not fail the same way:\n%s", again)
	assert.Contains(t, out, "semtest.ReplayProgram(t, newSem, guarantees, ")
}
