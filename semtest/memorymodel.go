package semtest

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/semacat/sem"
)

// testMemoryModel checks that a Release happens before the Acquire or
// TryAcquire its permits enable: a plain variable written before Release(1)
// is read after the Acquire returns. Without that edge, code that hands data
// from one holder to the next races; the race detector reports the race as
// a failure of the check, so it runs only under -race.
func (c *config) testMemoryModel(t *testing.T) {
	run(t, "ReleaseBeforeAcquire", func(t *testing.T) {
		// Real time, not a bubble: synctest.Wait is itself a
		// happens-before edge and would hide a missing one. The waiter
		// may be parked or not yet arrived when Release runs; the edge
		// must exist either way, so the trials vary the pause.
		s, trials := c.handOff(t, 50)
		for trial := range trials {
			var handed int
			seen := make(chan int, 1)
			go func() {
				defer recovered(func(msg string) {
					t.Errorf("trial %d: Acquire(1) panicked: %s", trial, msg)
					seen <- -1
				})
				if err := s.Acquire(context.Background(), 1); err != nil {
					seen <- -1
					return
				}
				seen <- handed
			}()
			for range trial % 4 {
				runtime.Gosched()
			}
			handed = trial + 1
			s.Release(1) // the waiter takes the permit over and keeps it for the next trial
			select {
			case got := <-seen:
				if got != trial+1 {
					t.Fatalf("trial %d: the Acquire(1) enabled by Release(1) saw %d; want %d, written before the Release (-1: Acquire failed)", trial, got, trial+1)
				}
			case <-time.After(c.stallLimit):
				t.Fatalf("trial %d: the waiting Acquire(1) did not return within %v of Release(1)", trial, c.stallLimit)
			}
		}
		s.Release(1)
	})
	run(t, "ReleaseBeforeTryAcquire", func(t *testing.T) {
		s, trials := c.handOff(t, 20)
		for trial := range trials {
			var handed int
			var wg sync.WaitGroup
			wg.Go(func() {
				handed = trial + 1
				s.Release(1)
			})
			deadline := time.Now().Add(c.stallLimit)
			for !s.TryAcquire(1) { // the test takes the permit over for the next trial
				if time.Now().After(deadline) {
					wg.Wait()
					t.Fatalf("trial %d: TryAcquire(1) still failed %v after another goroutine's Release(1)", trial, c.stallLimit)
				}
				runtime.Gosched()
			}
			if handed != trial+1 {
				t.Errorf("trial %d: the TryAcquire(1) enabled by Release(1) saw %d; want %d, written before the Release", trial, handed, trial+1)
			}
			wg.Wait()
		}
		s.Release(1)
	})
}

// handOff skips the check unless the race detector is on, and returns a
// semaphore of size 1 whose permit the test holds, and how many hand-offs
// to try: trials, or a few in real-time mode.
func (c *config) handOff(t *testing.T, trials int) (sem.Semaphore, int) {
	t.Helper()
	if !raceEnabled {
		t.Skip("needs the race detector (go test -race) to see a missing happens-before edge")
	}
	if c.realTime() {
		trials = 3
	}
	return c.newHeld(t, 1, 1), trials
}
