package check

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A run can end with no verdict of the scheduler's own in two ways, and
// the checker turns each into one.
//
//   - Every goroutine of the run is blocked, and not all on the run's
//     semaphores: one waits on a channel, a sync.WaitGroup, a select. The
//     testing/synctest bubble sees it and panics; run recovers the panic
//     and rejects the solution, naming the goroutine that had the turn.
//   - The goroutine that has the turn never reaches a scheduling point: it
//     waits on a sync.Mutex or a sync.Cond (which the bubble cannot tell
//     from a goroutine that runs), or spins on a plain variable. Nothing
//     can stop it, so a watchdog on real time, outside the bubble, prints
//     the verdict and ends the test binary once nobody has taken a turn
//     for the stall limit ([DefaultStall], or CHECK_STALL).

// DefaultStall is how long, in real time, a goroutine may keep the turn
// before the watchdog rejects the solution: far longer than any step of a
// solution that only computes between scheduling points, on a loaded
// machine under the race detector.
const DefaultStall = 20 * time.Second

// watchdog watches one run's turns in real time.
type watchdog struct {
	turns atomic.Int64           // turns taken so far
	who   atomic.Pointer[string] // who has the turn
	done  chan struct{}
}

// watch starts the watchdog of one run; say writes its verdict if the run
// stalls. Stop it with stop.
func watch(t *testing.T, say func(who string, stall time.Duration) string) *watchdog {
	stall := DefaultStall
	if s := os.Getenv("CHECK_STALL"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			t.Fatalf("check: CHECK_STALL=%q is not a duration: want one such as 30s", s)
		}
		stall = d
	}
	w := &watchdog{done: make(chan struct{})}
	go w.loop(t.Name(), stall, say)
	return w
}

// turn records that g has the turn.
func (w *watchdog) turn(g *goroutine) {
	w.turns.Add(1)
	w.who.Store(&g.name)
}

// holder names the goroutine that has, or last had, the turn.
func (w *watchdog) holder() string {
	if p := w.who.Load(); p != nil {
		return *p
	}
	return "the scenario"
}

func (w *watchdog) stop() { close(w.done) }

func (w *watchdog) loop(test string, stall time.Duration, say func(string, time.Duration) string) {
	tick := time.NewTicker(stall / 10)
	defer tick.Stop()
	last, since := w.turns.Load(), time.Now()
	for {
		select {
		case <-w.done:
			return
		case now := <-tick.C:
			if n := w.turns.Load(); n != last {
				last, since = n, now
				continue
			}
			if now.Sub(since) < stall {
				continue
			}
			// The test's goroutine is stuck in the run: end the binary,
			// with the verdict in the shape go test gives a failure.
			verdict := strings.ReplaceAll(say(w.holder(), stall), "\n", "\n        ")
			fmt.Printf("--- FAIL: %s\n    rejected:\n        %s\nFAIL\n", test, verdict)
			os.Exit(1)
		}
	}
}
