package semtest

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/semacat/sem/semtest/internal/model"
)

// The environment variables that steer the Model family without a change
// to the test that calls Run.
const (
	envPrograms = "SEMTEST_PROGRAMS" // number of random programs, overriding WithPrograms
	envSeed     = "SEMTEST_SEED"     // seed of the first program
	envReplay   = "SEMTEST_REPLAY"   // one program to replay instead of random ones
)

// defaultPrograms is few enough for every go test run, -race included;
// SEMTEST_PROGRAMS or WithPrograms runs longer.
const defaultPrograms = 2000

// WithPrograms sets the number of random programs the Model family runs (see
// the package documentation); the default is 2000. The environment variable
// SEMTEST_PROGRAMS overrides it, so that a longer run needs no change to the
// test.
func WithPrograms(n int) Option {
	return func(c *config) { c.programs = n }
}

// ReplayProgram runs one program of the Model family, in the text form its
// failure reports print, against the semaphores newSem builds, and fails t
// where they disagree with the model of the contract and of the guarantees
// g claims. The parts of a compound step run at once and may land in
// another order from run to run, so the program is run up to 20 times and
// the first disagreement is reported. Paste a reported program into a test
// of its own to keep the failure as a regression test.
func ReplayProgram(t *testing.T, newSem NewFunc, g Guarantees, program string) {
	t.Helper()
	f, err := model.ReplayFailure(t, model.NewFunc(newSem), claimsOf(g), program)
	if err != nil {
		t.Fatalf("semtest: cannot replay: %v", err)
	}
	if f != nil {
		t.Errorf("%s: %s: %s\n\tprogram: %s", f.Where(), f.Kind, f.Msg, f.Program)
	}
}

// claimsOf translates the guarantees the model can check.
func claimsOf(g Guarantees) model.Claims {
	return model.Claims{FIFO: g.FIFO, UnitFIFO: g.UnitFIFO, NoBarging: g.NoBarging}
}

// testModel runs seeded random programs against the implementation and
// compares it with the model after every step; on a failure it reports the
// shrunk program and how to replay it.
func (c *config) testModel(t *testing.T) {
	if c.realTime() {
		t.Skip("the model watches every goroutine block through testing/synctest, which cannot see an implementation that needs WithSettle")
	}
	if program := os.Getenv(envReplay); program != "" {
		t.Logf("replaying %s=%q", envReplay, program)
		ReplayProgram(t, c.newSem, c.g, program)
		return
	}
	programs, seed := c.programs, uint64(1)
	if programs == 0 {
		programs = defaultPrograms
	}
	readEnv(t, envPrograms, &programs)
	readEnv(t, envSeed, &seed)
	cfg := model.Config{Programs: programs, Seed: seed}
	if f := model.Find(t, model.NewFunc(c.newSem), claimsOf(c.g), cfg); f != nil {
		t.Errorf("program of seed %d, shrunk from %d steps to %q, fails at %s: %s: %s\n"+
			"replay it:\n\tcd %s && %s='%s' go test -run '%s' .\n"+
			"or keep it as a test:\n\tsemtest.ReplayProgram(t, newSem, guarantees, %q)",
			f.Seed, f.Original, f.Program, f.Where(), f.Kind, f.Msg,
			workDir(), envReplay, f.Program, runPattern(t.Name()), f.Program)
		return
	}
	t.Logf("%d programs from seed %d agree with the model (set %s and %s for another run)", programs, seed, envPrograms, envSeed)
}

// readEnv parses the environment variable name into *v, if it is set, and
// ends the test if it cannot.
func readEnv[T int | uint64](t *testing.T, name string, v *T) {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return
	}
	n, err := strconv.ParseUint(s, 10, 63)
	if err != nil {
		t.Fatalf("%s=%q: want a non-negative integer", name, s)
	}
	*v = T(n)
}

// workDir is the directory go test runs the test in: its package's.
func workDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "<the package directory>"
	}
	return wd
}

// runPattern is the -run pattern that selects exactly the test named name.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}
