package timeline_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"golang.org/x/sync/semaphore"

	"github.com/semacat/sem"
	"github.com/semacat/sem/condsem"
	"github.com/semacat/sem/lab/timeline"
	"github.com/semacat/sem/weighted"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// lane returns the lane called name, failing the test if there is none.
func lane(t *testing.T, tl timeline.Timeline, name string) timeline.LaneLine {
	t.Helper()
	l, ok := tl.Lane(name)
	require.True(t, ok, "no lane %q", name)
	return l
}

// handOff records holder holding one permit for a second while waiter
// waits for it, on s, and returns the timeline.
func handOff(t *testing.T, s sem.Semaphore) timeline.Timeline {
	rec := timeline.New()
	w := rec.Watch("s", s)
	defer w.Stop()
	holder, waiter := w.Lane("holder"), w.Lane("waiter")
	require.NoError(t, holder.Acquire(context.Background(), 1))
	var wg sync.WaitGroup
	wg.Go(func() {
		if assert.NoError(t, waiter.Acquire(context.Background(), 1)) {
			time.Sleep(time.Second)
			waiter.Release(1)
		}
	})
	time.Sleep(time.Second)
	holder.Release(1)
	wg.Wait()
	return rec.Timeline()
}

func TestWaitGrantHoldRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tl := handOff(t, weighted.New(1))
		assert.Equal(t, 2*time.Second, tl.End)
		assert.Equal(t, []timeline.Span{{Kind: timeline.Holding, Sem: "s", N: 1, From: 0, To: time.Second}},
			lane(t, tl, "holder").Spans)
		assert.Equal(t, []timeline.Mark{{Kind: timeline.Released, Sem: "s", N: 1, At: time.Second}},
			lane(t, tl, "holder").Marks)
		w := lane(t, tl, "waiter")
		assert.Equal(t, []timeline.Span{
			{Kind: timeline.Waiting, Sem: "s", N: 1, From: 0, To: time.Second},
			{Kind: timeline.Holding, Sem: "s", N: 1, From: time.Second, To: 2 * time.Second},
		}, w.Spans)
		assert.Equal(t, []timeline.Mark{
			{Kind: timeline.Granted, Sem: "s", N: 1, At: time.Second},
			{Kind: timeline.Released, Sem: "s", N: 1, At: 2 * time.Second},
		}, w.Marks)
	})
}

// Without sem.Observer (x/sync's semaphore), a call that took time is drawn
// as waiting from call to return.
func TestWaitWithoutObserver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tl := handOff(t, semaphore.NewWeighted(1))
		w := lane(t, tl, "waiter")
		require.NotEmpty(t, w.Spans)
		assert.Equal(t, timeline.Span{Kind: timeline.Waiting, Sem: "s", N: 1, From: 0, To: time.Second}, w.Spans[0])
		assert.Empty(t, lane(t, tl, "holder").Spans[1:], "the holder never waited")
	})
}

// condsem's waiter looks at its context after each Broadcast that does not
// let it proceed: one Woke mark per such Release, none for the Release that
// grants it.
func TestWakeUpsSeenThroughContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := timeline.New()
		w := rec.Watch("s", condsem.New(2))
		holder, waiter := w.Lane("holder"), w.Lane("waiter")
		require.NoError(t, holder.Acquire(context.Background(), 2))
		var wg sync.WaitGroup
		wg.Go(func() {
			if assert.NoError(t, waiter.Acquire(context.Background(), 2)) {
				waiter.Release(2)
			}
		})
		time.Sleep(time.Second)
		holder.Release(1)
		time.Sleep(time.Second)
		holder.Release(1)
		wg.Wait()
		marks := lane(t, rec.Timeline(), "waiter").Marks
		assert.Equal(t, []timeline.Mark{
			{Kind: timeline.Woke, Sem: "s", N: 2, At: time.Second},
			{Kind: timeline.Granted, Sem: "s", N: 2, At: 2 * time.Second},
			{Kind: timeline.Released, Sem: "s", N: 2, At: 2 * time.Second},
		}, marks)
	})
}

func TestFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := timeline.New()
		w := rec.Watch("s", weighted.New(1))
		a, b := w.Lane("a"), w.Lane("b")
		require.NoError(t, a.Acquire(context.Background(), 1))
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		require.ErrorIs(t, b.Acquire(ctx, 1), context.DeadlineExceeded)
		assert.False(t, b.TryAcquire(1))
		require.ErrorIs(t, b.Acquire(context.Background(), 2), sem.ErrExceedsSize)
		a.Release(1)
		l := lane(t, rec.Timeline(), "b")
		require.Len(t, l.Spans, 1)
		assert.Equal(t, timeline.Failed, l.Spans[0].Kind)
		assert.Equal(t, time.Second, l.Spans[0].To)
		require.Len(t, l.Marks, 3)
		for _, m := range l.Marks {
			assert.Equal(t, timeline.Refused, m.Kind)
			assert.Equal(t, time.Second, m.At)
		}
		assert.ErrorIs(t, l.Marks[0].Err, context.DeadlineExceeded)
		assert.ErrorIs(t, l.Marks[2].Err, sem.ErrExceedsSize)
	})
}

// Lanes are shared by name across semaphores, in order of first use, and a
// hold still open when the timeline is taken ends there.
func TestLanesAcrossSemaphores(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := timeline.New()
		f0, f1 := rec.Watch("fork 0", weighted.New(1)), rec.Watch("fork 1", weighted.New(1))
		require.True(t, f1.Lane("p").TryAcquire(1))
		require.NoError(t, f0.Lane("q").Acquire(context.Background(), 1))
		require.NoError(t, f0.Lane("p").Acquire(context.Background(), 0))
		time.Sleep(time.Second)
		f1.Lane("p").Release(1)
		tl := rec.Timeline()
		require.Len(t, tl.Lanes, 2)
		assert.Equal(t, "p", tl.Lanes[0].Name)
		assert.Equal(t, []timeline.Span{{Kind: timeline.Holding, Sem: "fork 1", N: 1, From: 0, To: time.Second}}, tl.Lanes[0].Spans)
		assert.Equal(t, []timeline.Span{{Kind: timeline.Holding, Sem: "fork 0", N: 1, From: 0, To: time.Second}}, tl.Lanes[1].Spans)
		_, ok := tl.Lane("r")
		assert.False(t, ok)
	})
}

// Stop removes the OnWait function Watch installed, so the strategy is
// back to doing no work for it: a wait made after Stop is reported to
// nobody, and a lane then records the call's outcome but not its wait.
func TestStopRemovesTheHook(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := timeline.New()
		w := rec.Watch("s", weighted.New(1))
		w.Stop()
		require.NoError(t, w.Lane("a").Acquire(context.Background(), 1))
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		require.Error(t, w.Lane("b").Acquire(ctx, 1), "waits, then fails")
		w.Lane("a").Release(1)
		b := lane(t, rec.Timeline(), "b")
		assert.Empty(t, b.Spans, "no wait was reported")
		require.Len(t, b.Marks, 1)
		assert.Equal(t, timeline.Refused, b.Marks[0].Kind)
	})
}
