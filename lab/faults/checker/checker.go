// Package checker verifies a fault-injection run from its histories alone:
// the workers' event files, the fenced store's log and the nemesis's record
// of the faults it injected (see package history). It knows nothing of the
// strategies under test and shares no code with them: a bug in a strategy
// cannot hide itself by also bending the check.
//
// # What a holder is
//
// A grant makes its worker a holder from the moment the worker logged it
// granted until the first of: the worker logged release-start (it stops
// using the permits before asking the server to take them back), the worker
// saw Done fire, or the worker was cut off (killed, or stopped or
// partitioned for longer than Cutoff) plus Cutoff. Cutoff is the shortest
// time the server may still keep the lease of a holder that stops talking
// to it: the lease minus the interval between refreshes, since the last
// refresh may have gone out that long before the fault. Faults of a server
// (a killed etcd leader, a restarted Redis) do not end anyone's validity: a
// strategy that survives them must keep its holders' grants.
//
// # The checks
//
//   - Over-admission: at no instant do the weights of valid holders sum to
//     more than the size.
//   - Fence order: the store accepted the tokens of each key in
//     non-decreasing order.
//   - Late writes: a holder cut off for longer than the lease that writes
//     afterwards with its old token must be rejected by the fence when a
//     newer token was accepted meanwhile.
//   - Done, where the grant can signal (done.go): a holder that checks its
//     grant before acting never finds it trusted once another worker was
//     granted its permits, and a holder partitioned for longer than the
//     lease sees Done fire within the lease of the cut.
//   - Permits back: after a holder is cut off, another worker is granted
//     within Lease + BackBound. The delay is reported for every fault.
//   - No false loss (leaselost.go): a release that says its lease was
//     lost, while nothing could have ended that lease, tells a fenced user
//     their work may have overlapped another's when it did not.
//   - No ghost grant (ghost.go): permits in use, as probes of the server
//     saw them, that no worker could hold, such as a request granted after
//     its client withdrew it.
//   - No stranded waiter and no vanished worker: every acquire-start ends
//     in a grant or an error, and every worker that was not killed logged
//     its exit.
//
// Events of different processes are ordered by their wall clocks, which is
// sound because every process of a run lives on one machine.
package checker

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/semacat/sem/lab/faults/history"
)

// StoreWorker is the Worker name of the fenced store's events, whose Detail
// names the worker that wrote, followed by UnfencedSuffix for a write that
// bypassed the fence.
const (
	StoreWorker    = "store"
	UnfencedSuffix = " (unfenced)"
)

// Config describes the run being checked.
type Config struct {
	Size      int64         // the semaphore's size
	Lease     time.Duration // the lease every grant was given
	Cutoff    time.Duration // how long a cut-off holder may still count as holding
	BackBound time.Duration // slack allowed past Lease for permits to come back
	GrantLag  time.Duration // how long before its worker logs a grant the server may have made it
}

// The kinds of violations.
const (
	OverAdmission     = "over-admission"
	FenceOrder        = "fence-order"
	LateWriteAccepted = "late-write-accepted"
	DoneNotFired      = "done-not-fired"
	PermitsNotBack    = "permits-not-back"
	Stranded          = "stranded-waiter"
	Vanished          = "vanished-worker"
	FalseLeaseLost    = "false-lease-lost"
	GhostGrant        = "ghost-grant"
)

// Violation is one broken promise.
type Violation struct {
	Kind string
	At   time.Time
	Msg  string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s at %s: %s", v.Kind, v.At.Format("15:04:05.000000"), v.Msg)
}

// Report is the outcome of a check.
type Report struct {
	Grants       int             // grants made to workers
	Faults       int             // faults injected (cont, heal and restart are not counted)
	HolderFaults int             // faults that hit a worker while it held a grant
	Violations   []Violation     // every broken promise, in no particular order
	PermitsBack  []time.Duration // per holder or server fault: from the fault to the next grant to another worker
	LateWrites   int             // writes with a token of a grant cut off for longer than the lease
	LateRejected int             // of those, rejected by the fence
	DoneSeen     int             // grants of holders cut off for longer than the lease whose worker then saw Done fire
	Overtaken    int             // held requests that reached the server after their client withdrew them
	Notes        []string        // checks that could not be made, and why
}

// Count returns the number of violations of the given kind.
func (r *Report) Count(kind string) int {
	n := 0
	for _, v := range r.Violations {
		if v.Kind == kind {
			n++
		}
	}
	return n
}

// Percentile returns the p-th percentile (0..100) of PermitsBack, 0 if none.
func (r *Report) Percentile(p float64) time.Duration {
	if len(r.PermitsBack) == 0 {
		return 0
	}
	d := slices.Clone(r.PermitsBack)
	slices.Sort(d)
	i := int(math.Ceil(p/100*float64(len(d)))) - 1
	return d[max(i, 0)]
}

// Load reads and merges the history files of a run.
func Load(paths ...string) ([]history.Event, error) {
	var all []history.Event
	for _, p := range paths {
		events, err := history.Read(p)
		if err != nil {
			return nil, err
		}
		all = append(all, events...)
	}
	return all, nil
}

// Check verifies the events of one run.
func Check(cfg Config, events []history.Event) *Report {
	r := &Report{}
	run := split(events)
	grants := run.grants(cfg)
	r.Grants = len(grants)
	for _, f := range run.faults {
		if !recovery(f) {
			r.Faults++
		}
	}
	checkAdmission(r, cfg, grants)
	checkFence(r, run.store)
	checkLate(r, cfg, run, grants)
	checkDone(r, cfg, run, grants)
	checkBack(r, cfg, run, grants)
	checkWaiters(r, run)
	checkLeaseLost(r, cfg, run)
	checkGhosts(r, cfg, run)
	countOvertaken(r, run)
	return r
}

// recovery says whether f records the end of a fault rather than a fault.
func recovery(f history.Event) bool {
	switch f.Detail {
	case history.FaultCont, history.FaultHeal, history.FaultRestart, history.FaultStallEnd, history.FaultDelivered,
		history.FaultFreed, history.FaultStable, history.FaultContServer:
		return true
	}
	return false
}

// run is a history split by its source.
type run struct {
	workers map[string][]history.Event // each worker's events, in its file order
	store   []history.Event            // the store's decisions, in its order
	faults  []history.Event            // the nemesis's record, in its order
	probes  []history.Event            // the probes of the server, in their order
}

func split(events []history.Event) *run {
	r := &run{workers: map[string][]history.Event{}}
	for _, e := range events {
		switch {
		case e.Kind == history.Fault:
			r.faults = append(r.faults, e)
		case e.Kind == history.Probe:
			r.probes = append(r.probes, e)
		case e.Worker == StoreWorker:
			r.store = append(r.store, e)
		default:
			r.workers[e.Worker] = append(r.workers[e.Worker], e)
		}
	}
	return r
}

// cut is a span during which a worker could not talk to its server: from a
// kill (forever), or from a stop or partition until the matching cont or
// heal.
type cut struct {
	start, end time.Time // end is zero for a kill, or a cut never ended
	detail     string
}

func (c cut) longerThan(d time.Duration, horizon time.Time) bool {
	end := c.end
	if end.IsZero() {
		end = horizon
	}
	return end.Sub(c.start) > d
}

// cuts returns the spans each worker was cut off.
func (r *run) cuts() map[string][]cut {
	cuts := map[string][]cut{}
	for _, f := range r.faults {
		list := cuts[f.Target]
		switch f.Detail {
		case history.FaultKill, history.FaultStop, history.FaultPartition:
			cuts[f.Target] = append(list, cut{start: f.Wall, detail: f.Detail})
		case history.FaultCont, history.FaultHeal:
			if n := len(list); n > 0 && list[n-1].end.IsZero() {
				list[n-1].end = f.Wall
			}
		}
	}
	return cuts
}

// horizon is the time of the last event of the run.
func (r *run) horizon() time.Time {
	var h time.Time
	for _, list := range [][]history.Event{r.store, r.faults} {
		for _, e := range list {
			h = later(h, e.Wall)
		}
	}
	for _, list := range r.workers {
		for _, e := range list {
			h = later(h, e.Wall)
		}
	}
	return h
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// grant is one acquisition as the checker sees it.
type grant struct {
	worker     string
	token      int64
	weight     int64
	canSignal  bool
	start, end time.Time   // end: release-start, Done, or cut-off + Cutoff
	releasedAt time.Time   // when the worker logged release-start, zero if never
	doneAt     time.Time   // when the worker saw Done fire, zero if never
	checks     []time.Time // when the worker checked the grant and found it trusted
}

// grants returns every grant of the run with its span of validity.
func (r *run) grants(cfg Config) []*grant {
	cuts := r.cuts()
	horizon := r.horizon()
	var out []*grant
	for name, events := range r.workers {
		var g *grant
		for _, e := range events {
			switch e.Kind {
			case history.Granted:
				g = &grant{worker: name, token: e.Token, weight: e.Weight, canSignal: e.CanSignal, start: e.Wall}
				out = append(out, g)
			case history.DoneFired:
				if g != nil && g.doneAt.IsZero() {
					g.doneAt = e.Wall
				}
			case history.DoneOpen:
				if g != nil {
					g.checks = append(g.checks, e.Wall)
				}
			case history.ReleaseStart:
				if g != nil {
					g.releasedAt = e.Wall
					g = nil
				}
			}
		}
	}
	for _, g := range out {
		end := horizon
		if !g.releasedAt.IsZero() {
			end = g.releasedAt
		}
		if !g.doneAt.IsZero() && g.doneAt.Before(end) {
			end = g.doneAt
		}
		for _, c := range cuts[g.worker] {
			limit := c.start.Add(cfg.Cutoff)
			if c.start.Before(end) && limit.Before(end) && c.longerThan(cfg.Cutoff, horizon) {
				end = later(g.start, limit)
			}
		}
		g.end = end
	}
	return out
}
