package fairsem_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/exercises/solutions/fairsem"
	"github.com/semacat/sem/semtest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var _ sem.Semaphore = (*fairsem.Semaphore)(nil)

// The grading of exercise 5: each variant keeps the contract and the
// guarantees it claims.
func TestConformance(t *testing.T) {
	requireAsked(t)
	t.Run("FirstFit", func(t *testing.T) {
		semtest.Run(t, func(size int64) sem.Semaphore { return fairsem.NewFirstFit(size) },
			semtest.Guarantees{UnitFIFO: true, NoBarging: true})
	})
	t.Run("FIFO", func(t *testing.T) {
		semtest.Run(t, func(size int64) sem.Semaphore { return fairsem.NewFIFO(size) },
			semtest.Guarantees{FIFO: true, NoBarging: true, NoStarvation: true})
	})
}

// What claiming FIFO changes, seen directly: size 2, both permits held, an
// Acquire(2) queued, then an Acquire(1). One permit comes back. First fit
// lets the Acquire(1) pass the Acquire(2); FIFO keeps it behind.
func TestSmallPassesLargeOnlyInFirstFit(t *testing.T) {
	requireAsked(t)
	for _, tc := range []struct {
		name        string
		newSem      func(int64) *fairsem.Semaphore
		smallPasses bool
	}{
		{"FirstFit", fairsem.NewFirstFit, true},
		{"FIFO", fairsem.NewFIFO, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := tc.newSem(2)
				assert.True(t, s.TryAcquire(2))
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				large, small := make(chan error, 1), make(chan error, 1)
				go func() { large <- s.Acquire(ctx, 2) }()
				synctest.Wait() // the large request is queued first
				go func() { small <- s.Acquire(ctx, 1) }()
				synctest.Wait()

				s.Release(1)
				synctest.Wait()
				assert.Equal(t, tc.smallPasses, len(small) == 1, "whether the Acquire(1) passed the queued Acquire(2)")
				assert.Empty(t, large, "the Acquire(2) was served with 1 permit free")

				cancel()
				synctest.Wait()
				if err := <-small; err == nil {
					s.Release(1)
				}
				assert.ErrorIs(t, <-large, context.Canceled)
				s.Release(1)
				assert.True(t, s.TryAcquire(2), "every permit is free at the end")
				s.Release(2)
			})
		})
	}
}

// A grant is final: a waiter granted its permits returns nil holding them,
// even when its context is canceled and another goroutine releases them
// before it has returned; Acquire never panics. Both variants grant in the
// walk, inside the Release, so the permit is held by the waiter as soon as
// Release returns: the second Release gives it back, legally.
func TestCancelAfterGrant(t *testing.T) {
	requireAsked(t)
	for name, newSem := range map[string]func(int64) *fairsem.Semaphore{
		"FirstFit": fairsem.NewFirstFit,
		"FIFO":     fairsem.NewFIFO,
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newSem(1)
				require.True(t, s.TryAcquire(1))
				ctx, cancel := context.WithCancel(t.Context())
				errs := make(chan error, 1)
				go func() { errs <- s.Acquire(ctx, 1) }()
				synctest.Wait() // parked in the queue
				s.Release(1)    // the walk grants the waiter
				cancel()
				require.NotPanics(t, func() { s.Release(1) }, "the granted permit is held, so another goroutine may release it")
				require.NoError(t, <-errs, "a granted waiter returns nil, even with its context canceled")
				assert.True(t, s.TryAcquire(1), "the permit is free again")
				assert.False(t, s.TryAcquire(1), "more than the size free")
			})
		})
	}
}
