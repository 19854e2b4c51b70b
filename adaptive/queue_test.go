package adaptive_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem"
	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

// hold keeps the limit and remembers the windows it saw.
type hold struct{ seen []adaptive.Window }

func (h *hold) Next(w adaptive.Window) float64 {
	h.seen = append(h.seen, w)
	return w.Limit
}

// learnt returns a Limiter at a limit of 10 that has seen one window of
// requests taking noLoad: its longest wait is noLoad/4, and permits come
// back at 10 per noLoad.
func learnt(t *testing.T, h *hold, opts ...adaptive.Option) *adaptive.Limiter {
	l := adaptive.New(weighted.New(1), 10, h, opts...)
	round(t, l, 10, noLoad, true)
	require.Len(t, h.seen, 1)
	return l
}

// startAsync calls Start in a goroutine and returns where its outcome goes.
func startAsync(ctx context.Context, l *adaptive.Limiter) chan error {
	errc := make(chan error, 1)
	go func() {
		tok, err := l.Start(ctx, 1)
		if err == nil {
			tok.Done(true)
		}
		errc <- err
	}()
	return errc
}

// TestStartWaitsOnlyWhileItPays: with the limit reached, Start waits at
// most a quarter of the no-load latency, refuses at once when the queue
// ahead would make it wait longer, or when the deadline leaves no time for
// the request, and says which with its error.
func TestStartWaitsOnlyWhileItPays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := learnt(t, &hold{})
		toks := started(t, l, 10)
		ctx := context.Background()

		short, cancel := context.WithTimeout(ctx, noLoad/2)
		defer cancel()
		began := time.Now()
		_, err := l.Start(short, 1)
		assert.ErrorIs(t, err, adaptive.ErrLimitExceeded, "the deadline leaves less than the mean latency")
		assert.Zero(t, time.Since(began), "refused at once")

		began = time.Now()
		_, err = l.Start(ctx, 1)
		assert.ErrorIs(t, err, adaptive.ErrQueueTimeout)
		assert.Equal(t, noLoad/4, time.Since(began), "the longest wait is a quarter of the no-load latency")

		// One request ahead is noLoad/10 of expected wait; three more are
		// 4/10 of noLoad, past the quarter.
		waiting := []chan error{startAsync(ctx, l), startAsync(ctx, l)}
		synctest.Wait()
		assert.EqualValues(t, 2, l.Queued())
		_, err = l.Start(ctx, 2)
		assert.ErrorIs(t, err, adaptive.ErrLimitExceeded, "a wait of 4/10 of noLoad does not pay")
		assert.EqualValues(t, 3, l.Refused())

		toks[0].Done(true)
		toks[1].Done(true)
		for _, errc := range waiting {
			assert.NoError(t, <-errc, "a released permit goes to a waiter")
		}
		assert.EqualValues(t, 0, l.Queued())
		for _, tok := range toks[2:] {
			tok.Done(true)
		}
	})
}

// TestQueueFailureIsNotTheBackends: a request that waited in Start's queue
// longer than it then ran, and failed, failed because of the wait: it is
// not a drop. One that failed after running longer than it waited is.
func TestQueueFailureIsNotTheBackends(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hold{}
		l := learnt(t, h, adaptive.WithMaxWait(time.Second))
		time.Sleep(2 * noLoad)
		toks := started(t, l, 10)
		errc := make(chan adaptive.Token, 2)
		for range 2 {
			go func() {
				tok, err := l.Start(context.Background(), 1)
				assert.NoError(t, err)
				errc <- tok
			}()
		}
		synctest.Wait()
		time.Sleep(noLoad)
		toks[0].Done(true)
		toks[1].Done(true)
		waited := []adaptive.Token{<-errc, <-errc}
		time.Sleep(noLoad / 2)
		waited[0].Done(false) // waited noLoad, ran noLoad/2: the queue's failure
		time.Sleep(noLoad)
		waited[1].Done(false) // ran 3/2 noLoad: the backend's
		for _, tok := range toks[2:] {
			tok.Done(true)
		}
		require.Len(t, h.seen, 2)
		assert.EqualValues(t, 1, h.seen[1].Drops)
	})
}

// TestCounters: InFlight, Queued and Refused count what they say, and
// WithOnLimitChange hears every change of the limit.
func TestCounters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var changes [][2]int64
		l := adaptive.New(weighted.New(1), 10, &recorder{next: []float64{12, 12, 6}},
			adaptive.WithOnLimitChange(func(old, new int64) { changes = append(changes, [2]int64{old, new}) }))
		toks := started(t, l, 9)
		assert.EqualValues(t, 9, l.InFlight())
		require.True(t, l.TryAcquire(1))
		assert.EqualValues(t, 10, l.InFlight(), "Acquire's permits count")
		_, ok := l.TryStart(1)
		assert.False(t, ok)
		assert.EqualValues(t, 1, l.Refused())
		l.Release(1)
		for _, tok := range toks {
			tok.Done(true)
		}
		for range 3 {
			round(t, l, 10, noLoad, true)
		}
		assert.Equal(t, [][2]int64{{10, 12}, {12, 6}}, changes)
		assert.EqualValues(t, 0, l.InFlight())
	})
}

// TestStartExceedsSize: a request larger than the limit fails with an
// error wrapping sem.ErrExceedsSize, before and after the Limiter has
// learnt a latency, from Start and StartClass alike, even with a done
// context, and is no refusal: it could never be admitted.
func TestStartExceedsSize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, l := range []*adaptive.Limiter{
			adaptive.New(weighted.New(1), 10, &hold{}),
			learnt(t, &hold{}),
		} {
			done, cancel := context.WithCancel(context.Background())
			cancel()
			for _, ctx := range []context.Context{context.Background(), done} {
				_, err := l.Start(ctx, 11)
				assert.ErrorIs(t, err, sem.ErrExceedsSize)
				assert.EqualError(t, err, "adaptive: Start(11) on a limit of 10: "+sem.ErrExceedsSize.Error())
				for _, c := range []int{0, 3} {
					_, err = l.StartClass(ctx, c, 11)
					assert.ErrorIs(t, err, sem.ErrExceedsSize, "class %d", c)
				}
			}
			assert.Zero(t, l.Refused())
		}
	})
}

// TestStartAtSmallLimits: with nobody ahead, a request still waits a mean
// latency over the limit for the first permit back, so with the default
// longest wait (a quarter of the no-load latency) Start refuses at once
// below a limit of 4 when every request takes the no-load latency, waits
// from 4 on, and waits at 3 too when WithMaxWait allows it.
func TestStartAtSmallLimits(t *testing.T) {
	for _, tc := range []struct {
		limit int
		opts  []adaptive.Option
		waits bool
	}{
		{3, nil, false},
		{4, nil, true},
		{3, []adaptive.Option{adaptive.WithMaxWait(noLoad)}, true},
	} {
		synctest.Test(t, func(t *testing.T) {
			h := &hold{}
			l := adaptive.New(weighted.New(1), int64(tc.limit), h, tc.opts...)
			for len(h.seen) == 0 { // a window holds 10 samples
				round(t, l, tc.limit, noLoad, true)
			}
			toks := started(t, l, tc.limit)
			errc := startAsync(context.Background(), l)
			synctest.Wait()
			if !tc.waits {
				assert.ErrorIs(t, <-errc, adaptive.ErrLimitExceeded, "limit %d: the first permit back is too far", tc.limit)
			} else {
				assert.EqualValues(t, 1, l.Queued(), "limit %d: Start waits", tc.limit)
				toks[0].Done(true)
				assert.NoError(t, <-errc)
			}
			for _, tok := range toks[1:] {
				tok.Done(true)
			}
			if !tc.waits {
				toks[0].Done(true)
			}
		})
	}
}

// TestRefusedLeavesOutOversize: a request larger than the limit is no
// refusal of TryStart or TryStartClass either: no free permits would have
// admitted it.
func TestRefusedLeavesOutOversize(t *testing.T) {
	l := adaptive.New(weighted.New(1), 4, &hold{})
	_, ok := l.TryStart(5)
	assert.False(t, ok)
	_, ok = l.TryStartClass(2, 5)
	assert.False(t, ok)
	assert.Zero(t, l.Refused())
}

// TestTokenMisuse: ending the zero Token, which a refusal returns, and
// reporting a negative latency are programmer errors, and panic.
func TestTokenMisuse(t *testing.T) {
	var zero adaptive.Token
	assert.Panics(t, func() { zero.Done(true) })
	assert.Panics(t, func() { zero.Report(time.Millisecond, true) })
	l := adaptive.New(weighted.New(1), 4, &hold{})
	tok, ok := l.TryStart(1)
	require.True(t, ok)
	assert.PanicsWithValue(t, "adaptive: Token.Report(-1s, true): want latency >= 0", func() { tok.Report(-time.Second, true) })
	assert.EqualValues(t, 1, l.InFlight(), "a refused Report gives nothing back")
	tok.Done(true)
}
