package group_test

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/group"
	"github.com/semacat/sem/weighted"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// gauge tracks how many permits the group's functions hold at once.
type gauge struct{ now, peak atomic.Int64 }

func (g *gauge) hold(n int64, d time.Duration) {
	now := g.now.Add(n)
	for p := g.peak.Load(); now > p && !g.peak.CompareAndSwap(p, now); p = g.peak.Load() {
	}
	time.Sleep(d)
	g.now.Add(-n)
}

func TestGoHoldsItsWeight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		s := weighted.New(4)
		g := group.New(s)
		var held gauge
		for _, n := range []int64{3, 1, 2, 2, 4, 1} {
			g.Go(n, func() error {
				held.hold(n, time.Second)
				return nil
			})
		}
		require.NoError(t, g.Wait())
		assert.Equal(t, int64(4), held.peak.Load(), "the group should fill the semaphore, and never exceed it")
		assert.Equal(t, int64(4), s.Available(), "every permit is back after Wait")
		// 3+1, then 2+2, then 4, then 1: four rounds of a second each.
		assert.Equal(t, 4*time.Second, time.Since(t0))
	})
}

func TestFirstErrorCancelsTheRest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("boom")
		s := weighted.New(2)
		g, ctx := group.WithContext(t.Context(), s)
		var ran atomic.Int32
		g.Go(1, func() error { <-ctx.Done(); return ctx.Err() }) // stopped by the failure
		g.Go(1, func() error { time.Sleep(time.Second); return boom })
		g.Go(2, func() error { ran.Add(1); return nil }) // waits for permits, then gives up
		assert.ErrorIs(t, g.Wait(), boom, "Wait reports the first failure, not the cancellations after it")
		assert.ErrorIs(t, context.Cause(ctx), boom, "the failure is the context's cause")
		assert.Zero(t, ran.Load(), "a call waiting for permits when the context ends does not run")
		assert.Equal(t, int64(2), s.Available())
	})
}

func TestWaitingGoReturnsWhenParentIsCanceled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		parent, cancel := context.WithCancel(t.Context())
		g, ctx := group.WithContext(parent, chansem.New(1))
		g.Go(1, func() error { <-ctx.Done(); return nil })
		returned := make(chan struct{})
		go func() {
			defer close(returned)
			g.Go(1, func() error { t.Error("ran after its group was canceled"); return nil })
		}()
		synctest.Wait()
		select {
		case <-returned:
			t.Fatal("Go returned while the permit was held")
		default:
		}
		cancel()
		<-returned
		assert.ErrorIs(t, g.Wait(), context.Canceled, "a call that could not run is a failure")
	})
}

func TestWaitWaitsForGoCallsWaitingForPermits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := group.New(chansem.New(1))
		var ran atomic.Bool
		g.Go(1, func() error { time.Sleep(time.Second); return nil })
		go g.Go(1, func() error { ran.Store(true); return nil })
		synctest.Wait() // the second Go waits for the permit
		require.NoError(t, g.Wait())
		assert.True(t, ran.Load(), "Wait returned before a Go call that was waiting for permits")
	})
}

func TestGoThatCannotEverFitFails(t *testing.T) {
	g, _ := group.WithContext(t.Context(), weighted.New(4))
	g.Go(5, func() error { t.Error("ran with more permits than the size"); return nil })
	assert.ErrorIs(t, g.Wait(), sem.ErrExceedsSize)
}

func TestGoOnClosedSemaphoreFails(t *testing.T) {
	s := weighted.New(4)
	require.NoError(t, s.Close())
	g := group.New(s)
	g.Go(1, func() error { t.Error("ran on a closed semaphore"); return nil })
	assert.ErrorIs(t, g.Wait(), sem.ErrClosed)
}

func TestTryGoNeverBlocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(2)
		g, ctx := group.WithContext(t.Context(), s)
		release := make(chan struct{})
		require.True(t, g.TryGo(2, func() error { <-release; return nil }))
		assert.False(t, g.TryGo(1, func() error { t.Error("ran without a permit"); return nil }))
		close(release)
		synctest.Wait()
		assert.True(t, g.TryGo(1, func() error { return errors.New("fail") }))
		synctest.Wait()
		require.Error(t, ctx.Err())
		assert.False(t, g.TryGo(1, func() error { t.Error("ran after the group failed"); return nil }),
			"TryGo starts nothing once the context is done, even with permits free")
		assert.Error(t, g.Wait())
	})
}

func TestPanicReleasesPermitsAndReachesWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(3)
		g, ctx := group.WithContext(t.Context(), s)
		g.Go(1, func() error { <-ctx.Done(); return nil })
		g.Go(2, func() error { panic("kaput") })
		v := func() (v any) {
			defer func() { v = recover() }()
			_ = g.Wait()
			return nil
		}()
		var p *group.PanicError
		require.ErrorAs(t, v.(error), &p, "Wait panics with a *PanicError")
		assert.Equal(t, "kaput", p.Value)
		assert.Contains(t, string(p.Stack), "group_test.go", "the stack is the panicking goroutine's")
		assert.ErrorAs(t, context.Cause(ctx), &p, "the panic is the context's cause")
		assert.Equal(t, int64(3), s.Available(), "a panic gives the permits back")
	})
}

func TestPanicWithAnErrorUnwraps(t *testing.T) {
	boom := errors.New("boom")
	g := group.New(chansem.New(1))
	g.Go(1, func() error { panic(boom) })
	v := func() (v any) {
		defer func() { v = recover() }()
		return g.Wait()
	}()
	assert.ErrorIs(t, v.(error), boom)
}

func TestGoexitEndsAsNil(t *testing.T) {
	s := chansem.New(1)
	g := group.New(s)
	g.Go(1, func() error { runtime.Goexit(); return errors.New("unreachable") })
	assert.NoError(t, g.Wait())
	assert.Equal(t, int64(1), s.Available())
}

func TestNegativeWeightPanics(t *testing.T) {
	g := group.New(chansem.New(1))
	assert.PanicsWithValue(t, "group: Go(-1): negative weight", func() { g.Go(-1, nil) })
	assert.PanicsWithValue(t, "group: TryGo(-2): negative weight", func() { g.TryGo(-2, nil) })
	assert.PanicsWithValue(t, "group: New: nil semaphore", func() { group.New(nil) })
	assert.PanicsWithValue(t, "group: WithContext: nil semaphore", func() { group.WithContext(t.Context(), nil) })
	assert.PanicsWithValue(t, "group: WithResults: nil semaphore", func() { group.WithResults[int](t.Context(), nil) })
}
