package semtest_test

import (
	"testing"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/semtest"
)

// A third party proves its semaphore with one test function in its own
// package: a constructor and the guarantees it claims beyond the contract.
// Here chansem stands in for that package. An example cannot run a test, so
// this one is compiled, not run; the body of conformance is the test.
func ExampleRun() {
	conformance := func(t *testing.T) { // func TestConformance(t *testing.T)
		semtest.Run(t, func(size int64) sem.Semaphore { return chansem.New(size) },
			semtest.Guarantees{UnitFIFO: true, NoStarvation: true, NoBarging: true})
	}
	_ = conformance
}

// A semaphore that waits outside the process (on a server) cannot be watched
// by testing/synctest. WithSettle runs the suite in real time instead: settle
// must return once every waiter the suite started has either blocked in
// Acquire or returned, here by waiting comfortably longer than a round trip.
func ExampleWithSettle() {
	conformance := func(t *testing.T) { // func TestConformance(t *testing.T)
		settle := func() { time.Sleep(20 * time.Millisecond) }
		semtest.Run(t, func(size int64) sem.Semaphore { return chansem.New(size) },
			semtest.Guarantees{},
			semtest.WithSettle(settle), semtest.WithTick(20*time.Millisecond))
	}
	_ = conformance
}

// When the Model family finds a program on which the implementation breaks
// the contract, it prints the program shrunk to a few steps. Pasted into a
// test of its own, ReplayProgram keeps it as a regression test; this one
// races a waiter's cancellation with the Release that would serve it.
func ExampleReplayProgram() {
	regression := func(t *testing.T) { // func TestCanceledBeforeRelease(t *testing.T)
		semtest.ReplayProgram(t, func(size int64) sem.Semaphore { return chansem.New(size) },
			semtest.Guarantees{UnitFIFO: true, NoBarging: true},
			"size 1; w1 acquire 1 bg; w2 acquire 1 cancelable; cancel w2 + release w1 1")
	}
	_ = regression
}

// A longer run of the Model family than the default, for a soak in CI; the
// environment variables SEMTEST_PROGRAMS and SEMTEST_SEED do the same
// without a change to the test.
func ExampleWithPrograms() {
	soak := func(t *testing.T) { // func TestSoak(t *testing.T)
		semtest.Run(t, func(size int64) sem.Semaphore { return chansem.New(size) },
			semtest.Guarantees{UnitFIFO: true, NoStarvation: true, NoBarging: true},
			semtest.WithPrograms(20000))
	}
	_ = soak
}
