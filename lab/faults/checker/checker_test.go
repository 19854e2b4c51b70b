package checker_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem/lab/faults/checker"
	"github.com/semacat/sem/lab/faults/history"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The hand-made histories below use a lease of 1s; a holder cut off counts
// as holding for 500ms more; permits must be back within 1.5s.
var cfg = checker.Config{Size: 1, Lease: time.Second, Cutoff: 500 * time.Millisecond, BackBound: 500 * time.Millisecond}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// h builds a history; every event is placed at a millisecond offset from t0.
type h []history.Event

func (x h) add(ms int, worker string, kind history.Kind, token int64) h {
	e := history.Event{Worker: worker, Kind: kind, Wall: t0.Add(time.Duration(ms) * time.Millisecond), Token: token, Key: "k"}
	if worker == checker.StoreWorker {
		e.Detail = writing
	}
	if kind == history.Granted || kind == history.AcquireStart {
		e.Weight = 1
	}
	return append(x, e)
}

// writing is the worker the store's next events are for.
var writing string

// store adds the store's decision on a write of worker.
func (x h) store(ms int, worker string, kind history.Kind, token int64) h {
	writing = worker
	return x.add(ms, checker.StoreWorker, kind, token)
}

// grant adds worker's acquire at ms and its grant with token 1ms later.
func (x h) grant(ms int, worker string, token int64) h {
	return x.add(ms, worker, history.AcquireStart, 0).add(ms+1, worker, history.Granted, token)
}

// pausedPastLease stops a at 100ms and resumes it at 2100ms, past its
// lease, while b holds from 1200ms to 1300ms with token 11.
func (x h) pausedPastLease() h {
	return x.fault(100, history.FaultStop, "a").
		hold(1200, 1300, "b", 11).
		fault(2100, history.FaultCont, "a")
}

// hold adds a full acquire-write-release cycle of worker with token, the
// store's decision included.
func (x h) hold(from, to int, worker string, token int64) h {
	return x.grant(from, worker, token).
		store(from+2, worker, history.WriteAccepted, token).
		add(from+3, worker, history.WriteAccepted, token).
		release(to, worker, token)
}

// release adds worker's release of token at ms, returning 1ms later.
func (x h) release(ms int, worker string, token int64) h {
	return x.add(ms, worker, history.ReleaseStart, token).add(ms+1, worker, history.Released, token)
}

func (x h) fault(ms int, detail, target string) h {
	return append(x, history.Event{Worker: "nemesis", Kind: history.Fault, Wall: t0.Add(time.Duration(ms) * time.Millisecond),
		Detail: detail, Target: target})
}

func (x h) exit(ms int, workers ...string) h {
	for _, w := range workers {
		x = x.add(ms, w, history.Exit, 0)
	}
	return x
}

func kinds(r *checker.Report) []string {
	var k []string
	for _, v := range r.Violations {
		k = append(k, v.Kind)
	}
	return k
}

// A valid run: holders take turns, one is killed while holding and its
// permit comes back within the lease.
func TestValidHistory(t *testing.T) {
	events := h{}.
		hold(0, 100, "a", 10).
		add(50, "b", history.AcquireStart, 0).
		add(101, "b", history.Granted, 11).
		store(102, "b", history.WriteAccepted, 11).
		fault(150, history.FaultKill, "b").
		hold(1100, 1200, "a", 12).
		exit(1300, "a")
	r := checker.Check(cfg, events)
	assert.Empty(t, r.Violations)
	assert.Equal(t, 3, r.Grants)
	assert.Equal(t, 1, r.Faults)
	assert.Equal(t, 1, r.HolderFaults)
	assert.Equal(t, []time.Duration{951 * time.Millisecond}, r.PermitsBack)
	assert.Equal(t, 951*time.Millisecond, r.Percentile(99))
}

func TestOverAdmission(t *testing.T) {
	events := h{}.hold(0, 100, "a", 10).hold(50, 150, "b", 11).exit(200, "a", "b")
	r := checker.Check(cfg, events)
	assert.Equal(t, []string{checker.OverAdmission}, kinds(r))
}

// A holder cut off counts as holding for Cutoff: a grant to another before
// that is over-admission, one after it is not.
func TestCutoffBoundsValidity(t *testing.T) {
	for _, tc := range []struct {
		name    string
		grantAt int
		want    []string
	}{
		{"granted-after-cutoff", 700, nil},
		{"granted-within-cutoff", 400, []string{checker.OverAdmission}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events := h{}.
				grant(0, "a", 10).
				fault(100, history.FaultKill, "a").
				hold(tc.grantAt, tc.grantAt+50, "b", 11).
				exit(2000, "b")
			r := checker.Check(cfg, events)
			assert.Equal(t, tc.want, kinds(r))
		})
	}
}

// A stop shorter than Cutoff leaves the holder valid past the stop time
// plus Cutoff: the grant to b at 700ms overlaps it.
func TestShortStopKeepsHolderValid(t *testing.T) {
	events := h{}.
		grant(0, "a", 10).
		fault(100, history.FaultStop, "a").
		fault(300, history.FaultCont, "a").
		add(800, "a", history.ReleaseStart, 10).
		hold(700, 850, "b", 11).
		exit(2000, "a", "b")
	r := checker.Check(cfg, events)
	assert.Equal(t, []string{checker.OverAdmission}, kinds(r))
}

func TestFenceOrder(t *testing.T) {
	events := h{}.hold(0, 100, "a", 10).hold(200, 300, "b", 11).
		store(400, "a", history.WriteAccepted, 10).
		exit(500, "a", "b")
	r := checker.Check(cfg, events)
	assert.Equal(t, []string{checker.FenceOrder}, kinds(r))
}

// pausedHolder is a holder stopped for 2s, longer than the lease, while b
// takes over and writes; a resumes and writes with its old token. Its grant
// cannot signal Done.
func pausedHolder(accepted bool) h {
	events := h{}.
		grant(0, "a", 10).
		store(2, "a", history.WriteAccepted, 10).
		pausedPastLease()
	decision := history.WriteRejected
	if accepted {
		decision = history.WriteAccepted
	}
	return events.store(2102, "a", decision, 10).add(2103, "a", decision, 10).
		release(2200, "a", 10).exit(2300, "a", "b")
}

func TestLateWrite(t *testing.T) {
	for _, tc := range []struct {
		name     string
		accepted bool
		want     []string
		rejected int
	}{
		{"rejected", false, nil, 1},
		{"accepted", true, []string{checker.FenceOrder, checker.LateWriteAccepted}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := checker.Check(cfg, pausedHolder(tc.accepted))
			assert.ElementsMatch(t, tc.want, kinds(r))
			assert.Equal(t, 1, r.LateWrites)
			assert.Equal(t, tc.rejected, r.LateRejected)
			assert.NotEmpty(t, r.Notes, "the grant cannot signal: the Done checks must say they were skipped")
		})
	}
}

// signalling is a holder a whose grant can signal Done, stopped from 100ms
// to 2100ms while b is granted at 1200ms; what a does before and after is
// up to the caller.
func signalling(before func(h) h) h {
	events := before(h{}.
		grant(0, "a", 10)).
		pausedPastLease()
	events[1].CanSignal = true
	return events
}

// A holder that checks before acting must find its grant lost once another
// was granted: a check that finds it trusted is Done firing too late, and
// so is a write by a worker that never checks. A pause between a check and
// its write is not Done's fault: the fence rejects the late write.
func TestDoneWhenActing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after func(h) h
		want  []string
		seen  int
	}{
		{"paused-between-check-and-write", func(x h) h {
			return x.store(2102, "a", history.WriteRejected, 10)
		}, nil, 0},
		{"done-seen-on-resume", func(x h) h {
			return x.add(2101, "a", history.DoneFired, 10)
		}, nil, 1},
		{"trusted-after-successor", func(x h) h {
			return x.add(2101, "a", history.DoneOpen, 10).store(2102, "a", history.WriteRejected, 10)
		}, []string{checker.DoneNotFired}, 0},
		{"done-seen-after-trusted", func(x h) h {
			return x.add(2101, "a", history.DoneOpen, 10).add(2102, "a", history.DoneFired, 10)
		}, []string{checker.DoneNotFired}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events := tc.after(signalling(func(x h) h { return x.add(50, "a", history.DoneOpen, 10) })).
				release(2200, "a", 10).exit(2300, "a", "b")
			r := checker.Check(cfg, events)
			assert.ElementsMatch(t, tc.want, kinds(r))
			assert.Equal(t, tc.seen, r.DoneSeen)
		})
	}
	t.Run("never-checks", func(t *testing.T) {
		events := signalling(func(x h) h { return x.store(2, "a", history.WriteAccepted, 10) }).
			store(2102, "a", history.WriteRejected, 10).
			release(2200, "a", 10).exit(2300, "a", "b")
		r := checker.Check(cfg, events)
		assert.Equal(t, []string{checker.DoneNotFired}, kinds(r))
		assert.Equal(t, 1, r.LateRejected)
	})
}

// A holder partitioned for longer than the lease must see Done fire within
// the lease of the cut, unless it released first.
func TestDoneWhenPartitioned(t *testing.T) {
	for _, tc := range []struct {
		name          string
		doneAt, relAt int
		want          []string
		seen          int
	}{
		{"in-time", 900, 1000, nil, 1},
		{"late", 1500, 1600, []string{checker.DoneNotFired}, 1},
		{"never", 0, 1600, []string{checker.DoneNotFired}, 0},
		{"released-first", 0, 500, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events := h{}.
				grant(0, "a", 10).
				fault(100, history.FaultPartition, "a").
				fault(2100, history.FaultHeal, "a")
			events[1].CanSignal = true
			if tc.doneAt != 0 {
				events = events.add(tc.doneAt, "a", history.DoneFired, 10)
			}
			events = events.release(tc.relAt, "a", 10).
				hold(1700, 1800, "b", 11).exit(2300, "a", "b")
			r := checker.Check(cfg, events)
			assert.ElementsMatch(t, tc.want, kinds(r))
			assert.Equal(t, tc.seen, r.DoneSeen)
		})
	}
}

func TestPermitsNotBack(t *testing.T) {
	killed := h{}.
		grant(0, "a", 10).
		fault(100, history.FaultKill, "a")
	late := killed.hold(1700, 1800, "b", 11).exit(2000, "b")
	r := checker.Check(cfg, late)
	assert.Equal(t, []string{checker.PermitsNotBack}, kinds(r))
	assert.Equal(t, []time.Duration{1601 * time.Millisecond}, r.PermitsBack)

	never := killed.add(50, "b", history.AcquireStart, 0).add(3000, "b", history.AcquireFailed, 0).exit(3001, "b")
	r = checker.Check(cfg, never)
	assert.Equal(t, []string{checker.PermitsNotBack}, kinds(r))
}

func TestStrandedAndVanished(t *testing.T) {
	events := h{}.hold(0, 100, "a", 10).add(200, "a", history.AcquireStart, 0).exit(300, "a").
		hold(400, 500, "b", 11)
	r := checker.Check(cfg, events)
	assert.ElementsMatch(t, []string{checker.Stranded, checker.Vanished}, kinds(r))
}

// A worker killed while writing leaves a torn last line, which Load drops.
func TestLoadDropsTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	w, err := history.Create(path, "a")
	require.NoError(t, err)
	require.NoError(t, w.Log(history.Event{Kind: history.AcquireStart, Weight: 1}))
	require.NoError(t, w.Close())
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"worker":"a","kind":"gran`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	events, err := checker.Load(path)
	require.NoError(t, err)
	require.Len(t, events, 1)
	assert.Equal(t, "a", events[0].Worker)
	assert.Equal(t, history.AcquireStart, events[0].Kind)
}

// Restarts, conts and heals end faults and are not counted as faults; a
// fault that hits a waiter measures nothing; a server fault measures the
// time to the next grant.
func TestFaultAccounting(t *testing.T) {
	events := h{}.
		hold(0, 100, "a", 10).
		add(50, "b", history.AcquireStart, 0).
		fault(60, history.FaultStop, "b").
		fault(70, history.FaultCont, "b").
		add(101, "b", history.Granted, 11).
		add(150, "b", history.ReleaseStart, 11).
		fault(200, history.FaultServer, "redis").
		fault(300, history.FaultRestart, "redis").
		hold(400, 500, "a", 12).
		exit(600, "a", "b")
	r := checker.Check(cfg, events)
	assert.Empty(t, r.Violations)
	assert.Equal(t, 2, r.Faults)
	assert.Equal(t, 0, r.HolderFaults)
	assert.Equal(t, []time.Duration{201 * time.Millisecond}, r.PermitsBack)
}

// A holder stopped right after the store accepted its write logs the answer
// only after it resumes: the write was not late, though its log line is.
func TestWriteLoggedLateIsNotLate(t *testing.T) {
	events := h{}.
		grant(0, "a", 10).
		store(99, "a", history.WriteAccepted, 10).
		pausedPastLease().
		add(2101, "a", history.WriteAccepted, 10).
		release(2200, "a", 10).
		exit(2300, "a", "b")
	r := checker.Check(cfg, events)
	assert.Empty(t, r.Violations)
	assert.Equal(t, 0, r.LateWrites)
}

// lostRelease adds a's release of token at ms, whose error says the lease
// was lost.
func (x h) lostRelease(ms int, worker string, token int64) h {
	x = x.add(ms, worker, history.ReleaseStart, token).add(ms+1, worker, history.Released, token)
	x[len(x)-1].Err = "redissem: Permit.Release(1): redissem: " + checker.LeaseLostText + ": Redis no longer holds the grant"
	return x
}

// A release that reports its lease lost is false unless something could
// have ended the lease: a server stall shorter than the Cutoff cannot; a
// longer one, a server kill, or a long stop of the holder can.
func TestFalseLeaseLost(t *testing.T) {
	held := func(fault func(h) h) []string {
		events := fault(h{}.grant(0, "a", 10).store(2, "a", history.WriteAccepted, 10)).
			lostRelease(1500, "a", 10).exit(1600, "a")
		return kinds(checker.Check(cfg, events))
	}
	assert.Equal(t, []string{checker.FalseLeaseLost}, held(func(x h) h { return x }))
	assert.Equal(t, []string{checker.FalseLeaseLost}, held(func(x h) h {
		return x.fault(100, history.FaultStall, "redis").fault(350, history.FaultStallEnd, "redis")
	}), "a stall shorter than the Cutoff ends no lease")
	assert.Empty(t, held(func(x h) h {
		return x.fault(100, history.FaultStall, "redis").fault(1200, history.FaultStallEnd, "redis")
	}), "a stall longer than the Cutoff may end the lease")
	assert.Empty(t, held(func(x h) h { return x.fault(100, history.FaultServer, "redis") }))
	assert.Empty(t, held(func(x h) h {
		return x.fault(100, history.FaultStop, "a").fault(1200, history.FaultCont, "a")
	}))
}
