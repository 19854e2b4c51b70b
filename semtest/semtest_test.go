package semtest_test

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/semtest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// ref's panics name the package "ref"; its type lives in semtest_test.
var refName = semtest.WithPackageName("ref")

// A correct implementation passes, whatever it honestly claims, and
// whichever optional interfaces it offers.
func TestRunPassesCorrect(t *testing.T) {
	t.Run("Plain", func(t *testing.T) {
		semtest.Run(t, newRef(false, bugNone), semtest.Guarantees{}, refName,
			semtest.WithNewAvailable(newRefAvailable(false, bugNone)))
	})
	t.Run("FIFO", func(t *testing.T) {
		semtest.Run(t, newRef(true, bugNone), semtest.Guarantees{FIFO: true, NoBarging: true, NoStarvation: true}, refName,
			semtest.WithNewAvailable(newRefAvailable(true, bugNone)))
	})
	t.Run("Bare", func(t *testing.T) {
		semtest.Run(t, func(size int64) sem.Semaphore { return bare{newRef(false, bugNone)(size)} }, semtest.Guarantees{}, refName)
	})
}

// bare hides every method of a semaphore but the contract's.
type bare struct{ sem.Semaphore }

// refAvailable gives the suite ref's NewAvailable, built with bug.
func refAvailable(bug string) []semtest.Option {
	return []semtest.Option{semtest.WithNewAvailable(newRefAvailable(false, bug))}
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
	{"overadmit", newRef(false, bugOverAdmit), none, "Acquire/BlocksWhenFull", 1, false, nil},
	{"overadmit-under-load", newRef(false, bugOverAdmit), none, "Stress/Hammer", 1, false, nil},
	{"lost-wakeup", newRef(false, bugLostWakeup), none, "Liveness/ReleaseWakesAllThatFit", 1, false, nil},
	{"ignores-cancel", newRef(false, bugIgnoreCancel), none, "Cancel/WhileWaiting", 1, false, nil},
	{"ignores-timeout", newRef(false, bugIgnoreCancel), none, "Cancel/Timeout", 1, false, nil},
	{"done-context-acquires", newRef(false, bugDoneContext), none, "Cancel/AlreadyDone", 1, false, nil},
	{"done-context-acquires-n>1", newRef(false, bugDoneContextBig), none, "Cancel/AlreadyDone", 1, false, nil},
	{"grant-after-cancel", newRef(false, bugGrantAfterDone), none, "Cancel/BeforeGrant", 1, false, nil},
	// Cancel/BeforeGrant's waiter asks for 2; only the model's random
	// weights reach this one.
	{"unit-grant-after-cancel", newRef(false, bugUnitGrantAfterDone), none, "Model", 1, false, nil},
	{"canceled-head-strands", newRef(true, bugStrand), fifo, "Cancel/HeadDoesNotStrand", 1, false, nil},
	{"over-release-no-panic", newRef(false, bugNoPanic), none, "BadInput/OverRelease/Fresh", 1, false, nil},
	{"over-release-panics-late", newRef(false, bugPanicLate), none, "BadInput/OverRelease/WaiterQueued", 1, false, nil},
	{"over-release-counts-gathered", newChanRef, none, "BadInput/OverRelease/WaiterPartlyServed", 1, false, nil},
	{"over-release-check-then-act", newRef(false, bugCheckThenAct), none, "BadInput/OverRelease/Concurrent", 3, false, nil},
	{"new-panic-without-package", newRef(false, bugNoPackageName), none, "BadInput/New", 1, false, nil},
	{"weight-panic-without-package", newRef(false, bugNoPackageName), none, "BadInput/NegativeWeight/Acquire", 1, false, nil},
	{"over-release-without-package", newRef(false, bugNoPackageName), none, "BadInput/OverRelease/Fresh", 1, false, nil},
	{"exceeds-size-blocks", newRef(false, bugExceedsBlocks), none, "ExceedsSize/Acquire", 1, false, nil},
	{"leaks-goroutines", newRef(false, bugLeak), none, "Stress/Goroutines", 1, false, nil},
	{"leaks-goroutines-never-canceled", newRef(false, bugLeak), none, "Leaks/Goroutines", 1, false, nil},
	{"leaks-afterfunc", newRef(false, bugLeakAfterFunc), none, "Leaks/AfterFunc", 1, false, nil},
	{"wrong-available", newRef(false, bugAvailable), none, "Snapshot/SizeAvailable", 1, false, nil},
	{"racy-release", newRef(false, bugRacyRelease), none, "MemoryModel/ReleaseBeforeAcquire", 1, true, nil},
	{"racy-tryacquire", newRef(false, bugRacyTryAcquire), none, "MemoryModel/ReleaseBeforeTryAcquire", 1, true, nil},
	{"barging", newRef(false, bugNone), noBarging, "Guarantees/NoBarging/Parked", 1, false, nil},
	{"barging-between-grants", newChanRef, noBarging, "Guarantees/NoBarging/PartlyServed", 3, false, nil},
	{"not-fifo", newRef(false, bugNone), fifo, "Guarantees/FIFO", 1, false, nil},
	{"not-unit-fifo", newRef(false, bugNone), unitFIFO, "Guarantees/UnitFIFO", 1, false, nil},
	{"starves-large", newRef(false, bugNone), noStarvation, "Guarantees/NoStarvation", 1, false, nil},
	{"resize-wakes-nobody", newRef(false, bugResizeNoWake), none, "Resize/Grow", 1, false, nil},
	{"resize-loses-fifo", newRef(true, bugResizeLosesFIFO), fifo, "Resize/GrowFIFO", 1, false, nil},
	{"shrink-revokes-held", newRef(false, bugShrinkRevokes), none, "Resize/ShrinkKeepsHeld", 1, false, nil},
	{"shrink-keeps-large-waiter", newRef(true, bugShrinkKeepsLarge), fifo, "Resize/ShrinkFailsLargeWaiter", 1, false, nil},
	{"exceeds-checks-old-size", newRef(false, bugExceedsOldSize), none, "Resize/ShrinkLaterExceeds", 1, false, nil},
	{"size-stale-after-resize", newRef(false, bugSizeStale), none, "Resize/Size", 1, false, nil},
	{"resize-accepts-zero", newRef(false, bugResizeNoCheck), none, "Resize/BadSize", 1, false, nil},
	{"over-release-unchecked-after-shrink", newRef(false, bugShrinkNoPanic), none, "Resize/OverRelease", 1, false, nil},
	{"close-wakes-nobody", newRef(false, bugCloseNoWake), none, "Close/FailsWaiters", 1, false, nil},
	{"close-serves-free-permits", newRef(false, bugCloseFreePermits), none, "Close/LaterAcquire", 1, false, nil},
	{"close-serves-tryacquire", newRef(false, bugCloseTry), none, "Close/TryAcquire", 1, false, nil},
	{"close-refuses-release", newRef(false, bugCloseRelease), none, "Close/Release", 1, false, nil},
	{"close-twice-errs", newRef(false, bugCloseTwice), none, "Close/Idempotent", 1, false, nil},
	{"close-leaks-afterfunc", newRef(false, bugCloseLeak), none, "Close/Leaks", 1, false, nil},
	{"waiting-miscounts-permits", newRef(false, bugWaitingPermits), none, "Observe/Waiting", 1, false, nil},
	{"onwait-every-wakeup", newRef(false, bugOnWaitEveryWake), none, "Observe/OnWaitGranted", 1, false, nil},
	{"onwait-err-nil", newRef(false, bugOnWaitNilErr), none, "Observe/OnWaitCanceled", 1, false, nil},
	{"onwait-skips-closed", newRef(false, bugOnWaitSkipsClosed), none, "Observe/OnWaitClosed", 1, false, nil},
	{"onwait-skips-exceeds", newRef(false, bugOnWaitSkipsExceeds), none, "Observe/OnWaitExceeds", 1, false, nil},
	{"onwait-reports-every-acquire", newRef(false, bugOnWaitAlways), none, "Observe/OnWaitNotWaited", 1, false, nil},
	{"onwait-nil-ignored", newRef(false, bugOnWaitNilIgnored), none, "Observe/OnWaitNil", 1, false, nil},
	{"available-ignored", newRef(false, bugNone), none, "NewAvailable/StartsWithAvailable", 1, false, refAvailable(bugAvailIgnored)},
	{"available-zero-means-all", newRef(false, bugNone), none, "NewAvailable/Signal", 1, false, refAvailable(bugAvailZeroMeansAll)},
	{"available-debt-counted-twice", newRef(false, bugNone), none, "NewAvailable/OverRelease", 1, false, refAvailable(bugAvailDoubleDebt)},
	{"available-above-size-accepted", newRef(false, bugNone), none, "NewAvailable/BadInput", 1, false, refAvailable(bugAvailNoCheck)},
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
			cmd.Env = append(os.Environ(), "SEMTEST_BROKEN="+b.name)
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
	for _, b := range broken {
		if b.name == name {
			semtest.Run(t, b.newSem, b.claims, append([]semtest.Option{refName}, b.opts...)...)
			return
		}
	}
	t.Fatalf("no broken implementation named %q", name)
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
