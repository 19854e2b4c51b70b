package scenarios_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/lab/timeline"
)

// Each test here asserts what its picture shows, so that the picture and
// the sentence the docs say about it cannot drift from the strategy.

// line returns the lane called name.
func line(t *testing.T, tl timeline.Timeline, name string) timeline.LaneLine {
	t.Helper()
	l, ok := tl.Lane(name)
	require.True(t, ok, "no lane %q", name)
	return l
}

// filter returns the elements of xs that keep accepts.
func filter[T any](xs []T, keep func(T) bool) []T {
	var kept []T
	for _, x := range xs {
		if keep(x) {
			kept = append(kept, x)
		}
	}
	return kept
}

// marksAt returns the lane's marks at instant at.
func marksAt(l timeline.LaneLine, at time.Duration) []timeline.Mark {
	return filter(l.Marks, func(m timeline.Mark) bool { return m.At == at })
}

// count returns how many of the lane's marks are of the kind.
func count(l timeline.LaneLine, kind timeline.MarkKind) int {
	return len(filter(l.Marks, func(m timeline.Mark) bool { return m.Kind == kind }))
}

// spans returns the lane's spans of the kind.
func spans(l timeline.LaneLine, kind timeline.SpanKind) []timeline.Span {
	return filter(l.Spans, func(s timeline.Span) bool { return s.Kind == kind })
}

// holdsStartingIn counts the lane's holds that begin in (from, to).
func holdsStartingIn(l timeline.LaneLine, from, to time.Duration) int {
	n := 0
	for _, s := range spans(l, timeline.Holding) {
		if s.From > from && s.From < to {
			n++
		}
	}
	return n
}

// onlyWait returns the lane's one wait, granted or failed.
func onlyWait(t *testing.T, l timeline.LaneLine) timeline.Span {
	t.Helper()
	ws := filter(l.Spans, func(s timeline.Span) bool { return s.Kind != timeline.Holding })
	require.Len(t, ws, 1, "lane %q", l.Name)
	return ws[0]
}

var herdWaiters = []string{"wants 1", "wants 2", "wants 3"}

// condsem's first Release wakes all three waiters (one is granted, two go
// back to sleep), in both variants; weighted's wakes only the one it serves,
// and no waiter of weighted ever wakes for nothing.
func TestHerd(t *testing.T) {
	for _, strategy := range []string{"condsem", "condsem-fair"} {
		t.Run(strategy, func(t *testing.T) {
			tl := run(t, "herd", strategy)
			for _, name := range herdWaiters {
				assert.Len(t, marksAt(line(t, tl, name), time.Second), 1, "%s woke on the first Release", name)
			}
			granted := marksAt(line(t, tl, "wants 1"), time.Second)
			require.Len(t, granted, 1)
			assert.Equal(t, timeline.Granted, granted[0].Kind)
		})
	}
	t.Run("weighted", func(t *testing.T) {
		tl := run(t, "herd", "weighted")
		woken := 0
		for _, name := range herdWaiters {
			l := line(t, tl, name)
			woken += len(marksAt(l, time.Second))
			assert.Zero(t, count(l, timeline.Woke), "%s woke for nothing", name)
		}
		assert.Equal(t, 1, woken, "one waiter woke on the first Release")
	})
}

// spinsem lets the running goroutine take the permit back while the waiter
// sleeps, and wakes the waiter for nothing at those Releases, until the
// waiter has waited past the starvation threshold; then it hands the
// permit to the waiter and makes the barger queue (starvation mode), and
// once that is over the barger barges again, past the second waiter.
// weighted serves the first waiter at the first Release, waking it once.
func TestBarging(t *testing.T) {
	t.Run("spinsem", func(t *testing.T) {
		tl := run(t, "barging", "spinsem")
		barger, first, second := line(t, tl, "barger"), line(t, tl, "waiter 1"), line(t, tl, "waiter 2")
		w1 := onlyWait(t, first)
		require.Equal(t, timeline.Waiting, w1.Kind)
		assert.Greater(t, w1.To-w1.From, time.Millisecond, "the waiter waited past the threshold")
		assert.GreaterOrEqual(t, holdsStartingIn(barger, w1.From, w1.To), 2, "the barger took the permit back while the waiter waited")
		woke := count(first, timeline.Woke)
		assert.Positive(t, woke, "the waiter never woke for nothing")
		assert.GreaterOrEqual(t, holdsStartingIn(barger, w1.From, w1.To), woke, "the barger took the permit back at every lost wake-up")
		queued := spans(barger, timeline.Waiting)
		require.NotEmpty(t, queued, "the barger never waited")
		assert.Equal(t, w1.To, queued[0].From, "starvation mode: the barger queued as the waiter was served")
		w2 := onlyWait(t, second)
		assert.GreaterOrEqual(t, holdsStartingIn(barger, w2.From, w2.To), 1, "normal mode again: the barger barged past the second waiter")
	})
	t.Run("weighted", func(t *testing.T) {
		tl := run(t, "barging", "weighted")
		w1 := onlyWait(t, line(t, tl, "waiter 1"))
		assert.Equal(t, 400*time.Microsecond, w1.To, "served at the first Release")
		assert.Zero(t, holdsStartingIn(line(t, tl, "barger"), w1.From, w1.To))
		assert.Zero(t, count(line(t, tl, "waiter 1"), timeline.Woke), "the waiter woke for nothing")
	})
}

// spinsem wakes the parked waiter at a Release, but the barger, still
// running, takes the permit back first: the waiter wakes for nothing
// again and again, until starvation mode hands it the permit. weighted
// hands the permit to the waiter at the first Release, and wakes it once.
func TestLostWakeup(t *testing.T) {
	t.Run("spinsem", func(t *testing.T) {
		tl := run(t, "lost-wakeup", "spinsem")
		waiter := line(t, tl, "waiter")
		w := onlyWait(t, waiter)
		woke := filter(waiter.Marks, func(m timeline.Mark) bool { return m.Kind == timeline.Woke })
		assert.GreaterOrEqual(t, len(woke), 2, "the waiter woke for nothing at least twice")
		for _, m := range woke {
			assert.True(t, m.At > w.From && m.At < w.To, "a wake-up at %v, outside the wait %v-%v", m.At, w.From, w.To)
		}
		assert.GreaterOrEqual(t, holdsStartingIn(line(t, tl, "barger"), w.From, w.To), len(woke), "the barger took the permit back at every lost wake-up")
	})
	t.Run("weighted", func(t *testing.T) {
		tl := run(t, "lost-wakeup", "weighted")
		waiter := line(t, tl, "waiter")
		assert.Equal(t, 200*time.Microsecond, onlyWait(t, waiter).To, "served at the first Release")
		assert.Zero(t, count(waiter, timeline.Woke))
	})
}

// A queue keeps the small request behind the head until the head gives up
// at 2s, though a permit is free from 1s; condsem serves it at 1s and wakes
// the head for nothing at each Release.
func TestCanceledHead(t *testing.T) {
	for _, strategy := range []string{"weighted", "chansem"} {
		t.Run(strategy, func(t *testing.T) {
			tl := run(t, "canceled-head", strategy)
			head := onlyWait(t, line(t, tl, "head, wants 2"))
			require.Equal(t, timeline.Failed, head.Kind)
			assert.Equal(t, 2*time.Second, head.To)
			small := onlyWait(t, line(t, tl, "wants 1"))
			assert.Equal(t, head.To, small.To, "the small request was granted as the head gave up")
		})
	}
	t.Run("condsem", func(t *testing.T) {
		tl := run(t, "canceled-head", "condsem")
		small := onlyWait(t, line(t, tl, "wants 1"))
		assert.Equal(t, time.Second, small.To, "served at the first Release, past the head")
		head := line(t, tl, "head, wants 2")
		assert.Equal(t, timeline.Failed, onlyWait(t, head).Kind)
		assert.Equal(t, 2, count(head, timeline.Woke), "woken by both Releases before its deadline")
	})
}

// Without a queue, the request for every permit waits until the small
// ones stop, woken at each of their releases; weighted lets no small one
// start while it waits, and serves it once those before it are done;
// spinsem's starvation mode serves it long before the small ones stop.
func TestLarge(t *testing.T) {
	smalls := []string{"small 1", "small 2", "small 3"}
	lastRelease := func(t *testing.T, tl timeline.Timeline) time.Duration {
		var last time.Duration
		for _, name := range smalls {
			for _, m := range line(t, tl, name).Marks {
				last = max(last, m.At)
			}
		}
		return last
	}
	t.Run("condsem", func(t *testing.T) {
		tl := run(t, "large", "condsem")
		l := line(t, tl, "large, wants 3")
		w := onlyWait(t, l)
		assert.Equal(t, lastRelease(t, tl), w.To, "served only when the small ones stopped")
		assert.Equal(t, 11, count(l, timeline.Woke), "woken by each of the other 11 releases in its wait")
	})
	t.Run("weighted", func(t *testing.T) {
		tl := run(t, "large", "weighted")
		w := onlyWait(t, line(t, tl, "large, wants 3"))
		assert.Equal(t, 1300*time.Millisecond, w.To, "served when the two that held as it came released")
		for _, name := range smalls {
			assert.Zero(t, holdsStartingIn(line(t, tl, name), w.From, w.To), "%s started while it waited", name)
		}
	})
	t.Run("spinsem", func(t *testing.T) {
		tl := run(t, "large", "spinsem")
		w := onlyWait(t, line(t, tl, "large, wants 3"))
		assert.Less(t, w.To, 2*time.Second, "starvation mode served it while the small ones still cycled")
	})
}

// Taking the left fork first, every philosopher holds one fork and waits
// for the other until the deadline; taking the lower fork first, every one
// holds both at some point, and nobody gives up.
func TestPhilosophers(t *testing.T) {
	t.Run("deadlock", func(t *testing.T) {
		tl := run(t, "philosophers-deadlock", "chansem")
		require.Len(t, tl.Lanes, 5)
		for _, l := range tl.Lanes {
			w := onlyWait(t, l)
			assert.Equal(t, timeline.Failed, w.Kind, l.Name)
			assert.Equal(t, time.Second, w.To, "%s gave up at the deadline", l.Name)
			assert.Len(t, spans(l, timeline.Holding), 1, "%s held one fork", l.Name)
		}
	})
	t.Run("ordered", func(t *testing.T) {
		tl := run(t, "philosophers-ordered", "chansem")
		require.Len(t, tl.Lanes, 5)
		for _, l := range tl.Lanes {
			assert.Empty(t, spans(l, timeline.Failed), l.Name)
			holds := spans(l, timeline.Holding)
			require.Len(t, holds, 2, l.Name)
			assert.Less(t, holds[1].From, holds[0].To, "%s held both forks at once: ate", l.Name)
		}
	})
}
