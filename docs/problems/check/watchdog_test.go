package check_test

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/docs/problems/check"
)

// unseenWaits are solutions that wait on something other than the run's
// semaphores, each with a piece of the verdict that must reject it.
var unseenWaits = map[string]struct {
	run  func(r *check.Run)
	want string
}{
	"Channel": {func(r *check.Run) {
		c := make(chan struct{})
		r.Go("sender", func(context.Context) error { c <- struct{}{}; return nil })
		r.Go("receiver", func(context.Context) error { <-c; return nil })
	}, "waited on something other than the semaphores the run gave it (a channel, a sync.WaitGroup, a select)"},
	"WaitGroup": {func(r *check.Run) {
		var wg sync.WaitGroup
		wg.Add(1)
		r.Go("waiter", func(context.Context) error { wg.Wait(); return nil })
		r.Go("doer", func(context.Context) error { wg.Done(); return nil })
	}, "waited on something other than the semaphores the run gave it"},
	"Mutex": {func(r *check.Run) {
		var mu sync.Mutex
		s := r.NewSemaphore(1, 0)
		r.Go("holder", func(ctx context.Context) error {
			mu.Lock()
			defer mu.Unlock()
			return s.Acquire(ctx, 1) // a scheduling point, holding mu
		})
		r.Go("locker", func(context.Context) error { mu.Lock(); mu.Unlock(); s.Release(1); return nil })
	}, "locker kept the turn for 300ms of real time without reaching a scheduling point"},
	"Spin": {func(r *check.Run) {
		done := false
		r.Go("spinner", func(ctx context.Context) error {
			for !done && ctx.Err() == nil {
			}
			return nil
		})
		r.Go("setter", func(context.Context) error { done = true; return nil })
	}, "or spins on a plain variable"},
}

// TestUnseenWaitHelper runs one of unseenWaits when TestUnseenWaits asks,
// in a process of its own: the watchdog ends the process, and a run the
// bubble found deadlocked leaves its goroutines blocked.
func TestUnseenWaitHelper(t *testing.T) {
	name := os.Getenv("CHECK_TEST_UNSEEN")
	if name == "" {
		t.Skip("run by TestUnseenWaits")
	}
	err := scenario(3, noRules).Verify(t, unseenWaits[name].run)
	t.Fatalf("rejected:\n%v", err)
}

// A solution that waits on anything but the run's semaphores gets a
// verdict that says so, not a panic or a hang.
func TestUnseenWaits(t *testing.T) {
	for name, tt := range unseenWaits {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestUnseenWaitHelper$", "-test.count=1")
			cmd.Env = append(os.Environ(), "CHECK_TEST_UNSEEN="+name, "CHECK_STALL=300ms")
			out, err := cmd.CombinedOutput()
			require.Error(t, err, "%s", out)
			assert.Contains(t, string(out), tt.want)
			assert.Contains(t, string(out), "seed 0 (lockstep")
			assert.NotContains(t, string(out), "panic:", "a verdict, not a panic and its stacks")
		})
	}
}
