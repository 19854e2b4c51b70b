package solutions_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
)

// racyAnswers are wrong answers that only the race detector rejects: each
// runs, as a student's test would, in a process of its own, since a data
// race fails the whole test binary.
var racyAnswers = map[string]func(t *testing.T){
	"RacyBarbershop": func(t *testing.T) {
		judge.Problem15.Test(t, func(n check.NewSemaphore, chairs int) judge.Barbershop { return newRacyBarbershop(n, chairs) })
	},
	"RacyFaneuilHall": func(t *testing.T) {
		judge.Problem31.Test(t, func(n check.NewSemaphore) judge.Hall { return newRacyHall(n, judge.Immigrants) })
	},
}

// TestRacyAnswerHelper runs the racy answer that TestRacyAnswers names.
func TestRacyAnswerHelper(t *testing.T) {
	answer, ok := racyAnswers[os.Getenv("SOLUTIONS_RACY_ANSWER")]
	if !ok {
		t.Skip("run by TestRacyAnswers")
	}
	answer(t)
}

// Under go test -race, each racy answer is rejected with the race
// detector's report.
func TestRacyAnswers(t *testing.T) {
	if !raceEnabled {
		t.Skip("the race detector is off: run go test -race")
	}
	for name := range racyAnswers {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestRacyAnswerHelper$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), "SOLUTIONS_RACY_ANSWER="+name)
			out, err := cmd.CombinedOutput()
			require.Error(t, err, "the race detector should reject %s:\n%s", name, out)
			assert.Contains(t, string(out), "WARNING: DATA RACE")
		})
	}
}
