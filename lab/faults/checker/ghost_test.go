package checker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/semacat/sem/lab/faults/checker"
	"github.com/semacat/sem/lab/faults/history"
)

// ghostCfg lets the server grant up to 250ms before the worker logs it.
var ghostCfg = func() checker.Config { c := cfg; c.GrantLag = 250 * time.Millisecond; return c }()

// probes adds a probe every 50ms from ms from to ms to, each seeing inUse
// permits in use and answered 2ms after it asked.
func (x h) probes(from, to int, inUse int64) h {
	for ms := from; ms < to; ms += 50 {
		at := t0.Add(time.Duration(ms) * time.Millisecond)
		x = append(x, history.Event{Worker: "probe", Kind: history.Probe, Since: at.Add(-2 * time.Millisecond), Wall: at, Weight: inUse})
	}
	return x
}

// failedAcquire adds worker's acquire from ms from, failing at ms to.
func (x h) failedAcquire(from, to int, worker string) h {
	return x.add(from, worker, history.AcquireStart, 0).add(to, worker, history.AcquireFailed, 0)
}

func TestGhostGrant(t *testing.T) {
	// a's acquire fails at 1000ms (it withdrew its request); the request
	// still reaches the server at 1500ms and is granted to nobody until
	// its lease ends at 2500ms, while b waits behind it.
	withdrawn := h{}.failedAcquire(0, 1000, "a").
		add(1600, "b", history.AcquireStart, 0).add(2510, "b", history.Granted, 12).release(2700, "b", 12).
		exit(2800, "a", "b")
	rep := checker.Check(ghostCfg, withdrawn.probes(0, 1500, 0).probes(1500, 2500, 1).probes(2520, 2700, 1).probes(2710, 2800, 0))
	assert.Equal(t, []string{checker.GhostGrant}, kinds(rep))

	// The same history, with the late request refused: nothing in use.
	rep = checker.Check(ghostCfg, withdrawn.probes(0, 2500, 0).probes(2520, 2700, 1).probes(2710, 2800, 0))
	assert.Empty(t, rep.Violations)
}

// A grant the server made before its worker logged it is no ghost while
// its answer took less than GrantLag; longer, and nobody could tell it
// from one.
func TestGhostGrantAllowsTheAnswersWay(t *testing.T) {
	answered := func(lag int) h {
		return h{}.add(0, "a", history.AcquireStart, 0).add(1000, "a", history.Granted, 11).release(1400, "a", 11).
			exit(1500, "a").probes(0, 1000-lag, 0).probes(1000-lag, 1400, 1).probes(1410, 1500, 0)
	}
	assert.Empty(t, checker.Check(ghostCfg, answered(200)).Violations)
	assert.Equal(t, []string{checker.GhostGrant}, kinds(checker.Check(ghostCfg, answered(600))))
}

// A held request counts as overtaken when its acquire failed, and so was
// withdrawn, before the relay delivered it.
func TestOvertaken(t *testing.T) {
	x := h{}.add(0, "a", history.AcquireStart, 0).fault(10, history.FaultHold, "a").
		add(1000, "a", history.AcquireFailed, 0).fault(1500, history.FaultDelivered, "a").
		add(0, "b", history.AcquireStart, 0).fault(10, history.FaultHold, "b").
		fault(200, history.FaultDelivered, "b").add(250, "b", history.AcquireFailed, 0).
		exit(1600, "a", "b")
	rep := checker.Check(cfg, x)
	assert.Equal(t, 1, rep.Overtaken, "a's request came after its withdrawal, b's before")
	assert.Equal(t, 2, rep.Faults, "a delivery ends a hold, it is no fault of its own")
}
