package oracle

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/semaphore"
)

// These tests document two defects of golang.org/x/sync/semaphore.Weighted,
// the reference semacat measures itself against; they pass while the
// defects exist. Both are the same pattern: a waiter granted its permits
// sees its context done and gives them back, although another goroutine
// may have legally released them in between (they were held).
//
// Each scene is staged in a synctest bubble with one P, so that the waiter,
// woken by the grant or by the cancellation, runs only once the test
// goroutine has finished the scene and waits for it. A trial in which it
// ran earlier anyway is retried.

// After <-ready, with ctx done by then, Acquire calls s.Release(n), which
// panics "released more than held": Acquire panics.
func TestXSyncReleaseAfterReadyPanics(t *testing.T) {
	got := stageXSync(t, func(s *semaphore.Weighted, cancel context.CancelFunc) {
		s.Release(1) // grants the waiter: closes its ready channel
		cancel()
		s.Release(1) // legal: the waiter holds the permit
	})
	require.NotNil(t, got.panic, "x/sync's Acquire no longer panics here (Acquire returned %v); update this test", got.err)
	assert.Contains(t, fmt.Sprint(got.panic), "released more than held")
}

// After <-done, when ready was closed meanwhile, Acquire does s.cur -= n
// without a check: the count goes negative, and the semaphore admits more
// than its size.
func TestXSyncDoneAfterReadyOverAdmits(t *testing.T) {
	got := stageXSync(t, func(s *semaphore.Weighted, cancel context.CancelFunc) {
		cancel()     // wakes the waiter on ctx.Done()
		s.Release(1) // grants the still queued waiter
		s.Release(1) // legal: the waiter holds the permit
	})
	require.Nil(t, got.panic)
	require.ErrorIs(t, got.err, context.Canceled)
	admitted := 0
	for got.sem.TryAcquire(1) && admitted < 3 {
		admitted++
	}
	assert.Equal(t, 2, admitted, "x/sync no longer over-admits here; update this test")
}

// xsyncOutcome is how a staged waiter's Acquire ended.
type xsyncOutcome struct {
	sem   *semaphore.Weighted
	err   error
	panic any
}

// stageXSync builds a semaphore of size 1 whose permit the test holds,
// starts Acquire(ctx, 1) and lets it park, runs scene, and returns how the
// Acquire ended. It retries a trial in which the waiter returned before the
// scene was over, up to 20 times.
func stageXSync(t *testing.T, scene func(*semaphore.Weighted, context.CancelFunc)) xsyncOutcome {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for trial := range 20 {
		var out xsyncOutcome
		early := false
		synctest.Test(t, func(t *testing.T) {
			out.sem = semaphore.NewWeighted(1)
			require.True(t, out.sem.TryAcquire(1))
			ctx, cancel := context.WithCancel(context.Background())
			returned := make(chan struct{})
			go func() {
				defer close(returned)
				defer func() { out.panic = recover() }()
				out.err = out.sem.Acquire(ctx, 1)
			}()
			synctest.Wait() // parked
			_, p := panicsIn(func() { scene(out.sem, cancel) })
			select {
			case <-returned:
				early = true // it ran before the scene was over
			default:
				early = p // it gave the permit back first: nothing was held
				<-returned
			}
		})
		if !early {
			t.Logf("staged in trial %d", trial)
			return out
		}
	}
	t.Fatal("the waiter ran before the scene was over in every trial")
	return xsyncOutcome{}
}

// panicsIn calls f and reports what it panicked with, if it did.
func panicsIn(f func()) (v any, panicked bool) {
	defer func() {
		v = recover()
		panicked = v != nil
	}()
	f()
	return nil, false
}
