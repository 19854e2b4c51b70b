package checker

import (
	"fmt"
	"time"

	"github.com/semacat/sem/lab/faults/history"
)

// checkDone verifies what Done promises, for the grants that can signal it.
//
// Acting: a careful holder checks its grant right before each act (the
// worker's done-open events). A check that finds the grant still trusted
// after another worker was granted permits that, with this grant's, exceed
// the size means Done came too late: the server had given the permits away
// and the holder was not told. A worker that never checks (the broken
// variant) is judged at its writes instead. A pause between a check and the
// act it guards is beyond Done: the act is late, and only the fence can
// stop it (see checkLate).
//
// Cut off: a holder partitioned for longer than the lease and still holding
// must see Done fire within the lease of the cut, since the server may
// expire its lease by then. A stopped holder sees nothing until it resumes,
// and the acting rule judges what it does then.
func checkDone(r *Report, cfg Config, run *run, grants []*grant) {
	killed := killTimes(run.faults)
	skipped := false
	for _, g := range grants {
		if !g.canSignal {
			skipped = true
			continue
		}
		for _, at := range acts(g, run.store) {
			if h := successor(cfg, grants, killed, g, at); h != nil {
				r.Violations = append(r.Violations, Violation{DoneNotFired, at,
					fmt.Sprintf("%s acted on its grant (token %d) as still held, though %s had been granted token %d at %s: Done had not fired",
						g.worker, g.token, h.worker, h.token, h.start.Format("15:04:05.000"))})
				break
			}
		}
	}
	checkDoneOnCut(r, cfg, run, grants)
	if skipped {
		r.Notes = append(r.Notes, "Done checks skipped for grants that cannot signal Done")
	}
}

// killTimes returns when each killed worker was killed.
func killTimes(faults []history.Event) map[string]time.Time {
	killed := map[string]time.Time{}
	for _, f := range faults {
		if f.Detail == history.FaultKill {
			killed[f.Target] = f.Wall
		}
	}
	return killed
}

// acts returns when g's worker decided to act on g: its checks, or, for a
// worker that never checks, its writes as the store decided them.
func acts(g *grant, store []history.Event) []time.Time {
	if len(g.checks) > 0 {
		return g.checks
	}
	var at []time.Time
	for _, w := range store {
		if w.Token == g.token && writer(w) == g.worker {
			at = append(at, w.Wall)
		}
	}
	return at
}

// successor returns a grant to another worker, made after g and before at,
// at whose start the workers believed they held more than the size: g's
// permits had been handed on. It returns nil if there is none.
func successor(cfg Config, grants []*grant, killed map[string]time.Time, g *grant, at time.Time) *grant {
	for _, h := range grants {
		if h.worker == g.worker || !h.start.After(g.start) || !h.start.Before(at) {
			continue
		}
		var believed int64
		for _, x := range grants {
			if x.believedAt(h.start, killed[x.worker]) {
				believed += x.weight
			}
		}
		if believed > cfg.Size {
			return h
		}
	}
	return nil
}

// believedAt says whether the worker believed it held g at instant at:
// granted, and neither releasing, nor told by Done, nor killed (at
// killedAt, zero if never).
func (g *grant) believedAt(at, killedAt time.Time) bool {
	for _, end := range []time.Time{g.releasedAt, g.doneAt, killedAt} {
		if !end.IsZero() && !end.After(at) {
			return false
		}
	}
	return !g.start.After(at)
}

// checkDoneOnCut counts the holders cut off for longer than the lease that
// saw Done fire, and reports a partitioned holder that still held a lease
// after the cut without seeing Done fire.
func checkDoneOnCut(r *Report, cfg Config, run *run, grants []*grant) {
	horizon := run.horizon()
	cuts := run.cuts()
	for _, g := range grants {
		for _, c := range cuts[g.worker] {
			if !g.canSignal || c.detail == history.FaultKill || !c.longerThan(cfg.Lease, horizon) || !g.heldAt(c.start) {
				continue
			}
			seen := g.doneAt.After(c.start)
			if seen {
				r.DoneSeen++
			}
			if c.detail != history.FaultPartition {
				continue
			}
			expiry := c.start.Add(cfg.Lease)
			switch {
			case seen && g.doneAt.After(expiry):
				r.Violations = append(r.Violations, Violation{DoneNotFired, g.doneAt,
					fmt.Sprintf("%s, partitioned at %s, saw Done fire only at %s, more than a lease after the cut",
						g.worker, c.start.Format("15:04:05.000"), g.doneAt.Format("15:04:05.000"))})
			case !seen && g.heldAt(expiry):
				r.Violations = append(r.Violations, Violation{DoneNotFired, expiry,
					fmt.Sprintf("%s, partitioned at %s, still held its grant (token %d) a lease later without having seen Done fire",
						g.worker, c.start.Format("15:04:05.000"), g.token)})
			}
		}
	}
}
