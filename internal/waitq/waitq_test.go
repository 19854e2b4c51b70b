package waitq

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var bg = context.Background()

// weights lists the queue front to back, checking the back links agree.
func weights(t *testing.T, q *Queue) []int64 {
	t.Helper()
	var got []int64
	var prev *Waiter
	for w := q.Front(); w != nil; w = w.next {
		require.Same(t, prev, w.prev, "broken back link at weight %d", w.N)
		require.True(t, w.queued)
		got = append(got, w.N)
		prev = w
	}
	require.Same(t, prev, q.tail, "tail is not the last waiter")
	require.Equal(t, len(got), q.Len())
	return got
}

func TestFIFO(t *testing.T) {
	var q Queue
	q.PushBack(bg, 9)
	a, b := q.PushBack(bg, 1), q.PushBack(bg, 2)
	q.PushBack(bg, 3)
	assert.Equal(t, []int64{9, 1, 2, 3}, weights(t, &q))
	q.Remove(b) // middle
	assert.Equal(t, []int64{9, 1, 3}, weights(t, &q))
	q.Remove(q.Front()) // head
	q.Remove(q.tail)    // tail
	assert.Equal(t, []int64{1}, weights(t, &q))
	q.Remove(a)
	assert.Empty(t, weights(t, &q))
	assert.Nil(t, q.Front())
	q.Remove(a) // not queued: no-op
	assert.Equal(t, 0, q.Len())
}

func TestRecycleReusesWithoutStaleWake(t *testing.T) {
	var q Queue
	w := q.PushBack(bg, 4)
	w.Granted, w.Since = true, 7
	w.Wake()
	w.Wake() // absorbed, never blocks
	q.Remove(w)
	q.Recycle(w)
	again := q.PushBack(bg, 2)
	require.Same(t, w, again, "a recycled waiter was not reused")
	assert.Equal(t, int64(2), again.N)
	assert.False(t, again.Granted)
	assert.Zero(t, again.Since)
	q.Remove(again)
	q.Recycle(again)
	assert.Nil(t, again.Ctx, "a recycled waiter keeps its context alive")
	again = q.PushBack(bg, 2)
	assert.Equal(t, bg, again.Ctx)
	select {
	case <-again.Woken():
		t.Fatal("a wake-up from the waiter's previous use survived recycling")
	default:
	}
	assert.Panics(t, func() { q.Recycle(again) }, "recycling a queued waiter")
}

func TestSteadyStateAllocatesNothing(t *testing.T) {
	var q Queue
	q.Recycle(func() *Waiter { w := q.PushBack(bg, 1); q.Remove(w); return w }())
	allocs := testing.AllocsPerRun(100, func() {
		w := q.PushBack(bg, 1)
		w.Wake()
		<-w.Woken()
		q.Remove(w)
		q.Recycle(w)
	})
	assert.Zero(t, allocs)
}
