package semtest_test

import (
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

// A correct implementation passes, whatever it honestly claims.
func TestRunPassesCorrect(t *testing.T) {
	t.Run("Plain", func(t *testing.T) {
		semtest.Run(t, newRef(false, bugNone), semtest.Guarantees{})
	})
	t.Run("FIFO", func(t *testing.T) {
		semtest.Run(t, newRef(true, bugNone), semtest.Guarantees{FIFO: true, NoBarging: true, NoStarvation: true})
	})
}

// broken lists implementations that break one promise each, and the subtest
// that must report it.
var broken = []struct {
	name    string
	fifo    bool
	bug     string
	claims  string // comma-separated guarantees claimed
	failing string // the subtest of semtest.Run that must fail
}{
	{"overadmit", false, bugOverAdmit, "", "Acquire/BlocksWhenFull"},
	{"overadmit-under-load", false, bugOverAdmit, "", "Stress/Hammer"},
	{"lost-wakeup", false, bugLostWakeup, "", "Liveness/ReleaseWakesAllThatFit"},
	{"ignores-cancel", false, bugIgnoreCancel, "", "Cancel/WhileWaiting"},
	{"ignores-timeout", false, bugIgnoreCancel, "", "Cancel/Timeout"},
	{"done-context-acquires", false, bugDoneContext, "", "Cancel/AlreadyDone"},
	{"canceled-head-strands", true, bugStrand, "FIFO", "Cancel/HeadDoesNotStrand"},
	{"over-release-no-panic", false, bugNoPanic, "", "BadInput/OverRelease/Fresh"},
	{"exceeds-size-blocks", false, bugExceedsBlocks, "", "ExceedsSize/Acquire"},
	{"leaks-goroutines", false, bugLeak, "", "Stress/Goroutines"},
	{"barging", false, bugNone, "NoBarging", "Guarantees/NoBarging"},
	{"not-fifo", false, bugNone, "FIFO", "Guarantees/FIFO"},
	{"not-unit-fifo", false, bugNone, "UnitFIFO", "Guarantees/UnitFIFO"},
	{"starves-large", false, bugNone, "NoStarvation", "Guarantees/NoStarvation"},
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
			t.Parallel()
			pattern := "^TestBrokenTarget$/^" + strings.ReplaceAll(b.failing, "/", "$/^") + "$"
			cmd := exec.Command(exe, "-test.run="+pattern, "-test.v", "-test.count=1")
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
			semtest.Run(t, newRef(b.fifo, b.bug), semtest.Guarantees{
				FIFO:         strings.Contains(b.claims, "FIFO") && !strings.Contains(b.claims, "UnitFIFO"),
				UnitFIFO:     strings.Contains(b.claims, "UnitFIFO"),
				NoBarging:    strings.Contains(b.claims, "NoBarging"),
				NoStarvation: strings.Contains(b.claims, "NoStarvation"),
			})
			return
		}
	}
	t.Fatalf("no broken implementation named %q", name)
}
