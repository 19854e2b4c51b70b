package model

import (
	"testing"

	"github.com/semacat/sem/semtest/internal/reftest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// broken are semaphores with one known bug each, what they claim, and the
// kind of failure the model must report.
var broken = []struct {
	name   string
	newSem NewFunc
	claims Claims
	kind   string
}{
	// chansem's gathering design: a TryAcquire takes a slot freed for a
	// request that is gathering (the over-release check added, so that only
	// this bug is left).
	{"gather/barging", newStrict(reftest.NewGather), Claims{UnitFIFO: true, NoBarging: true}, "barging"},
	// The same, as it is: Release counts the slots a gatherer holds.
	{"gather/over-release", reftest.NewGather, Claims{UnitFIFO: true}, "over-release"},
	// x/sync before go.dev/issue/63615: the grant goes to a waiter whose
	// context is already done.
	{"handoff/keep-canceled", reftest.NewHandoff(reftest.HandoffGrantsCanceled), Claims{FIFO: true, NoBarging: true}, "cancel-first"},
	// A waiter granted its permits gives them back once it sees its context
	// done, though another goroutine has released them meanwhile.
	{"handoff/gives-back", reftest.NewHandoff(reftest.HandoffGivesBack), Claims{FIFO: true, NoBarging: true}, "acquire-panic"},
	{"ref/lost-wakeup", reftest.New(false, reftest.LostWakeup), Claims{}, "lost-wakeup"},
	{"ref/over-admission", reftest.New(false, reftest.OverAdmit), Claims{}, "over-admission"},
	{"ref/ignore-cancel", reftest.New(false, reftest.IgnoreCancel), Claims{}, "ignores-cancel"},
	{"ref/done-context", reftest.New(false, reftest.DoneContext), Claims{}, "done-context"},
	{"ref/no-panic", reftest.New(false, reftest.NoPanic), Claims{}, "over-release"},
	{"ref/not-fifo", reftest.New(false, reftest.None), Claims{FIFO: true}, "fifo"},
	{"ref/barging", reftest.New(true, reftest.Barging), Claims{FIFO: true, NoBarging: true}, "barging"},
	{"ref/available", reftest.New(true, reftest.AvailableMinusWaiting), Claims{FIFO: true, NoBarging: true}, "available"},
	{"ref/shy-try", reftest.New(false, reftest.ShyTry), Claims{}, "try"},
	// Without Available, the permits it strands show when a TryAcquire
	// cannot have them.
	{"ref/strand", newStrict(reftest.New(false, reftest.CancelTakesPermit)), Claims{}, "try"},
	{"lifo", reftest.NewHandoff(reftest.HandoffLIFO), Claims{UnitFIFO: true}, "unit-fifo"},
}

// TestFindsBugs checks that the model finds each broken semaphore's bug
// within a fixed number of programs, shrinks it to a short program, and that
// the program replays to the same kind of failure.
func TestFindsBugs(t *testing.T) {
	for _, tc := range broken {
		t.Run(tc.name, func(t *testing.T) {
			f := Find(t, tc.newSem, tc.claims, Config{Programs: 2000, Seed: 1})
			require.NotNil(t, f, "no failure found in 2000 programs")
			t.Log(f)
			assert.Equal(t, tc.kind, f.Kind)
			p, err := parse(f.Program)
			require.NoError(t, err)
			assert.LessOrEqual(t, len(p.steps), 6, "shrunk program too long")
			replays := 0
			for range 20 {
				g, err := ReplayFailure(t, tc.newSem, tc.claims, f.Program)
				require.NoError(t, err)
				if g != nil && g.Kind == tc.kind {
					replays++
				}
			}
			assert.Positive(t, replays, "the shrunk program never replayed to a %s failure", tc.kind)
			t.Logf("replayed to the same failure %d times of 20", replays)
		})
	}
}
