package model

import (
	"os"
	"testing"
	"time"

	"github.com/semacat/sem/semtest/internal/reftest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// TestGoroutineLeak and TestHang leave goroutines of deliberately
	// broken semaphores blocked for good.
	goleak.VerifyTestMain(m,
		goleak.IgnoreAnyFunction("github.com/semacat/sem/semtest/internal/model.(*leaky).park"),
		goleak.IgnoreAnyFunction("github.com/semacat/sem/semtest/internal/model.(*rawChan).Release"),
		// The root of TestHang's bubble, left waiting for its body.
		goleak.IgnoreTopFunction("testing/synctest.testingSynctestTest"))
}

// correct are obviously correct semaphores and what they claim.
var correct = []struct {
	name   string
	newSem NewFunc
	claims Claims
}{
	{"ref", reftest.New(false, reftest.None), Claims{}},
	{"ref/fifo", reftest.New(true, reftest.None), Claims{FIFO: true, NoBarging: true}},
	{"handoff", reftest.NewHandoff(reftest.HandoffKeeps), Claims{FIFO: true, NoBarging: true}},
	{"xsync", newXSyncFixed, Claims{FIFO: true, NoBarging: true}},
}

// TestCorrect runs many programs against the correct semaphores: the model
// must find nothing.
func TestCorrect(t *testing.T) {
	// 1000 random programs per implementation in an ordinary run; the long
	// mode that make test sets (SEMACAT_LONG=1) runs 5000.
	programs := 1000
	switch {
	case testing.Short():
		programs = 500
	case os.Getenv("SEMACAT_LONG") != "":
		programs = 5000
	}
	for _, tc := range correct {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			Check(t, tc.newSem, tc.claims, Config{Programs: programs, Seed: 1})
			d := time.Since(start)
			t.Logf("%d programs in %v: %.0f programs/s", programs, d.Round(time.Millisecond), float64(programs)/d.Seconds())
		})
	}
}
