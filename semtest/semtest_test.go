package semtest_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem/semtest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// ref's panics name the package "ref"; its type lives in semtest_test.
var refName = semtest.WithPackageName("ref")

// A correct implementation passes, whatever it honestly claims.
func TestRunPassesCorrect(t *testing.T) {
	t.Run("Plain", func(t *testing.T) {
		semtest.Run(t, newRef(false, bugNone), semtest.Guarantees{}, refName)
	})
	t.Run("FIFO", func(t *testing.T) {
		semtest.Run(t, newRef(true, bugNone), semtest.Guarantees{FIFO: true, NoBarging: true, NoStarvation: true}, refName)
	})
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
}{
	{"overadmit", newRef(false, bugOverAdmit), none, "Acquire/BlocksWhenFull", 1, false},
	{"overadmit-under-load", newRef(false, bugOverAdmit), none, "Stress/Hammer", 1, false},
	{"lost-wakeup", newRef(false, bugLostWakeup), none, "Liveness/ReleaseWakesAllThatFit", 1, false},
	{"ignores-cancel", newRef(false, bugIgnoreCancel), none, "Cancel/WhileWaiting", 1, false},
	{"ignores-timeout", newRef(false, bugIgnoreCancel), none, "Cancel/Timeout", 1, false},
	{"done-context-acquires", newRef(false, bugDoneContext), none, "Cancel/AlreadyDone", 1, false},
	{"done-context-acquires-n>1", newRef(false, bugDoneContextBig), none, "Cancel/AlreadyDone", 1, false},
	{"grant-after-cancel", newRef(false, bugGrantAfterDone), none, "Cancel/BeforeGrant", 1, false},
	{"canceled-head-strands", newRef(true, bugStrand), fifo, "Cancel/HeadDoesNotStrand", 1, false},
	{"over-release-no-panic", newRef(false, bugNoPanic), none, "BadInput/OverRelease/Fresh", 1, false},
	{"over-release-panics-late", newRef(false, bugPanicLate), none, "BadInput/OverRelease/WaiterQueued", 1, false},
	{"over-release-counts-gathered", newChanRef, none, "BadInput/OverRelease/WaiterPartlyServed", 1, false},
	{"over-release-check-then-act", newRef(false, bugCheckThenAct), none, "BadInput/OverRelease/Concurrent", 3, false},
	{"new-panic-without-package", newRef(false, bugNoPackageName), none, "BadInput/New", 1, false},
	{"weight-panic-without-package", newRef(false, bugNoPackageName), none, "BadInput/NegativeWeight/Acquire", 1, false},
	{"over-release-without-package", newRef(false, bugNoPackageName), none, "BadInput/OverRelease/Fresh", 1, false},
	{"exceeds-size-blocks", newRef(false, bugExceedsBlocks), none, "ExceedsSize/Acquire", 1, false},
	{"leaks-goroutines", newRef(false, bugLeak), none, "Stress/Goroutines", 1, false},
	{"leaks-goroutines-never-canceled", newRef(false, bugLeak), none, "Leaks/Goroutines", 1, false},
	{"leaks-afterfunc", newRef(false, bugLeakAfterFunc), none, "Leaks/AfterFunc", 1, false},
	{"wrong-available", newRef(false, bugAvailable), none, "Snapshot/SizeAvailable", 1, false},
	{"racy-release", newRef(false, bugRacyRelease), none, "MemoryModel/ReleaseBeforeAcquire", 1, true},
	{"racy-tryacquire", newRef(false, bugRacyTryAcquire), none, "MemoryModel/ReleaseBeforeTryAcquire", 1, true},
	{"barging", newRef(false, bugNone), noBarging, "Guarantees/NoBarging/Parked", 1, false},
	{"barging-between-grants", newChanRef, noBarging, "Guarantees/NoBarging/PartlyServed", 3, false},
	{"not-fifo", newRef(false, bugNone), fifo, "Guarantees/FIFO", 1, false},
	{"not-unit-fifo", newRef(false, bugNone), unitFIFO, "Guarantees/UnitFIFO", 1, false},
	{"starves-large", newRef(false, bugNone), noStarvation, "Guarantees/NoStarvation", 1, false},
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
			semtest.Run(t, b.newSem, b.claims, refName)
			return
		}
	}
	t.Fatalf("no broken implementation named %q", name)
}
