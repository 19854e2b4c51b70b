package semexpvar_test

import (
	"context"
	"encoding/json"
	"expvar"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/semexpvar"
	"github.com/semacat/sem/weighted"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// read returns the variable as /debug/vars shows it.
func read(t *testing.T, v expvar.Var) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(v.String()), &m))
	return m
}

func TestExportsSizeAvailableAndWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := weighted.New(4)
		v := semexpvar.Var(s)
		require.NoError(t, s.Acquire(t.Context(), 3))

		// One waits 2ms and is granted, one waits 5s and gives up.
		granted := make(chan error)
		go func() { granted <- s.Acquire(t.Context(), 2) }()
		synctest.Wait() // first in line: weighted is FIFO
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		go func() { _ = s.Acquire(ctx, 4) }()
		synctest.Wait()

		m := read(t, v)
		assert.EqualValues(t, 4, m["size"])
		assert.EqualValues(t, 1, m["available"])
		assert.EqualValues(t, 2, m["waiting_requests"])
		assert.EqualValues(t, 6, m["waiting_permits"])
		assert.EqualValues(t, 0, m["waits"], "no wait has ended yet")

		time.Sleep(2 * time.Millisecond)
		s.Release(3)
		require.NoError(t, <-granted)
		time.Sleep(5 * time.Second)
		synctest.Wait()

		m = read(t, v)
		assert.EqualValues(t, 2, m["available"])
		assert.EqualValues(t, 0, m["waiting_requests"])
		assert.EqualValues(t, 2, m["waits"])
		assert.EqualValues(t, 1, m["waits_failed"])
		assert.InDelta(t, 5.002, m["wait_seconds_sum"], 1e-9)
		assert.Equal(t, map[string]any{
			"1e-06": 0.0, "1e-05": 0.0, "0.0001": 0.0, "0.001": 0.0,
			"0.01": 1.0, "0.1": 1.0, "1": 1.0, "10": 2.0, "+Inf": 2.0,
		}, m["wait_seconds_bucket"], "cumulative counts: 2ms under 10ms, 5s under 10s")
		s.Release(2)
	})
}

func TestExportsTheNumbersOfAnAdaptiveLimiter(t *testing.T) {
	l := adaptive.New(weighted.New(16), 7, &adaptive.AIMD{})
	v := semexpvar.Var(l)
	tok, ok := l.TryStart(3)
	require.True(t, ok)
	_, ok = l.TryStart(5)
	require.False(t, ok)
	assert.Equal(t, map[string]any{"limit": 7.0, "in_flight": 3.0, "queued": 0.0, "refused": 1.0}, read(t, v))
	tok.Done(true)
}

func TestGaugeAddsNumbers(t *testing.T) {
	n := int64(41)
	v := semexpvar.Var(chansem.New(2), semexpvar.Gauge("queued", func() int64 { n++; return n }))
	m := read(t, v)
	assert.EqualValues(t, 42, m["queued"], "read at every read")
	assert.EqualValues(t, 2, m["size"])
	assert.EqualValues(t, 43, read(t, v)["queued"])
}

// runs numbers the runs of TestPublish, so that -count reruns it under
// names of their own: expvar never forgets one.
var runs atomic.Int32

func TestPublish(t *testing.T) {
	name := fmt.Sprintf("semexpvar_test_publish_%d", runs.Add(1))
	semexpvar.Publish(name, chansem.New(3))
	v := expvar.Get(name)
	require.NotNil(t, v)
	assert.EqualValues(t, 3, read(t, v)["available"])
	assert.Panics(t, func() { semexpvar.Publish(name, chansem.New(1)) }, "a name is published once")
}

// bare is a semaphore with only the contract's methods.
type bare struct{ sem.Semaphore }

func TestBadInputPanics(t *testing.T) {
	assert.PanicsWithValue(t, "semexpvar: Var(semexpvar_test.bare): the semaphore reports nothing "+
		"(no Size, Available, Limit, InFlight, Queued, Refused, Waiting or OnWait method) and no Gauge was given",
		func() { semexpvar.Var(bare{}) })
	assert.NotPanics(t, func() { semexpvar.Var(bare{}, semexpvar.Gauge("x", func() int64 { return 0 })) })
	assert.PanicsWithValue(t, `semexpvar: Gauge("", f): want a name and a non-nil f`,
		func() { semexpvar.Gauge("", func() int64 { return 0 }) })
	assert.PanicsWithValue(t, `semexpvar: Var(*chansem.Semaphore): two members named "size"; give the Gauge another name`,
		func() { semexpvar.Var(chansem.New(2), semexpvar.Gauge("size", func() int64 { return 42 })) },
		"a Gauge would hide the semaphore's own size")
	assert.Panics(t, func() { semexpvar.Var(weighted.New(2), semexpvar.Gauge("waits", func() int64 { return 0 })) })
}

// spy is an Observer that keeps the function installed.
type spy struct {
	*weighted.Semaphore
	f func(sem.WaitEvent)
}

func (s *spy) OnWait(f func(sem.WaitEvent)) { s.f = f }

func TestCountingAWaitAllocatesNothing(t *testing.T) {
	s := &spy{Semaphore: weighted.New(1)}
	semexpvar.Var(s)
	require.NotNil(t, s.f)
	now := time.Now()
	e := sem.WaitEvent{N: 1, Start: now, End: now.Add(3 * time.Millisecond)}
	assert.Zero(t, testing.AllocsPerRun(100, func() { s.f(e) }))
}
