package check

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/semacat/sem/chansem"
)

// Free runs: the race detector cannot see a data race in a seeded run,
// where one goroutine runs at a time and the scheduler hands the turn on
// through channels (every access happens before the next goroutine's).
// A free run runs the same scenario on real goroutines, all at once, and
// real semaphores (chansem's), so that under go test -race an access to
// a shared variable that the solution does not guard is reported, with
// both goroutines' stacks. A free run judges nothing but what its
// goroutines return: with all at once, no log would hold the order things
// happened in. It runs in a testing/synctest bubble, whose
// clock keeps the scenario's timing, and a deadlock ends at once, at the
// Deadline of the bubble's clock.

// freeRuns is how many free runs Test makes of a solution under the race
// detector.
const freeRuns = 3

// free is the state of a free run. Its goroutines share nothing of the
// Run that they write while they run: a lock or channel they all took on
// each event would order their accesses for the race detector, which then
// misses the races in between. So a free run keeps no log (nothing judges
// it), draws Rand from the goroutine-safe generator of math/rand/v2, and
// each goroutine keeps what it returns to itself until all have ended.
type free struct {
	workers, servers sync.WaitGroup

	mu      sync.Mutex // guards started, appended to as goroutines start
	started []*freeGoroutine
}

// freeGoroutine is a goroutine of a free run, and what it returned.
type freeGoroutine struct {
	who    string
	server bool
	err    error
}

// FreeRun runs the scenario once on real goroutines and real semaphores,
// and returns what its goroutines returned, joined (a deadlock shows as
// goroutines still waiting at the Deadline). Under go test -race, the
// race detector fails t on a data race in the solution.
func (p Problem[S]) FreeRun(t *testing.T, seed uint64, solution S) (err error) {
	synctest.Test(t, func(*testing.T) {
		r := newRun(seed, false)
		r.free = &free{}
		r.ctx, r.cancel = context.WithTimeout(context.Background(), Deadline)
		r.stopCtx, r.stop = context.WithCancel(r.ctx)
		defer r.cancel()
		p.Scenario(r, solution)
		r.free.workers.Wait()
		r.stopped = true
		r.stop()
		r.free.servers.Wait()
		if r.ctx.Err() != nil {
			r.deadlock = true
		}
		for _, g := range r.free.started {
			if !(g.server && errors.Is(g.err, context.Canceled)) {
				r.fail(g.who, g.err)
			}
		}
		err = errors.Join(r.errs...)
	})
	if err != nil {
		return fmt.Errorf("a free run (real goroutines, all at once, on real semaphores) failed:\n%w", err)
	}
	return nil
}

// startFree starts a goroutine of a free run. Goroutines start one
// another only at their start (the scenario's) or rarely, so the lock
// around started orders little.
func (r *Run) startFree(who string, server bool, f func(ctx context.Context) error) {
	wg, ctx := &r.free.workers, r.ctx
	if server {
		wg, ctx = &r.free.servers, r.stopCtx
	}
	g := &freeGoroutine{who: who, server: server}
	r.free.mu.Lock()
	r.free.started = append(r.free.started, g)
	r.free.mu.Unlock()
	wg.Go(func() { g.err = r.call(ctx, f) })
}

// workFree is Work in a free run.
func (r *Run) workFree(d time.Duration) { sleepFree(d) }

// sleepFree is Sleep in a free run: the bubble's clock moves only when
// every goroutine of the run is blocked, so the scenario's timing holds
// (who comes when, who works how long) while the goroutines that can run
// run at once.
func sleepFree(d time.Duration) {
	if d <= 0 {
		runtime.Gosched()
		return
	}
	time.Sleep(d)
}

// randFree is Rand in a free run: not seeded, as the run is not.
func randFree(n int) int { return rand.IntN(n) }

// newFreeSemaphore is NewSemaphore in a free run: a real semaphore.
func newFreeSemaphore(size, available int64) *chansem.Semaphore {
	return chansem.NewAvailable(size, available)
}
