package checker

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/semacat/sem/lab/faults/history"
)

// checkAdmission sweeps over the grants' spans and reports every episode in
// which valid holders held more than the size.
func checkAdmission(r *Report, cfg Config, grants []*grant) {
	type edge struct {
		at    time.Time
		delta int64
		g     *grant
	}
	var edges []edge
	for _, g := range grants {
		edges = append(edges, edge{g.start, g.weight, g}, edge{g.end, -g.weight, g})
	}
	sort.SliceStable(edges, func(i, j int) bool {
		if !edges[i].at.Equal(edges[j].at) {
			return edges[i].at.Before(edges[j].at)
		}
		return edges[i].delta < edges[j].delta // ends before starts
	})
	var held int64
	holders := map[*grant]bool{}
	over := false
	for _, e := range edges {
		held += e.delta
		if e.delta > 0 {
			holders[e.g] = true
		} else {
			delete(holders, e.g)
		}
		if held > cfg.Size && !over {
			r.Violations = append(r.Violations, Violation{OverAdmission, e.at,
				fmt.Sprintf("%d permits of %d held by valid holders: %s", held, cfg.Size, describe(holders))})
		}
		over = held > cfg.Size
	}
}

func describe(holders map[*grant]bool) string {
	var s []string
	for g := range holders {
		s = append(s, fmt.Sprintf("%s(token %d, weight %d, since %s)", g.worker, g.token, g.weight, g.start.Format("15:04:05.000")))
	}
	slices.Sort(s)
	return fmt.Sprint(s)
}

// checkFence replays the store's decisions: accepted tokens of a key never
// go down.
func checkFence(r *Report, store []history.Event) {
	highest := map[string]int64{}
	for _, e := range store {
		if e.Kind != history.WriteAccepted {
			continue
		}
		if top, ok := highest[e.Key]; ok && e.Token < top {
			r.Violations = append(r.Violations, Violation{FenceOrder, e.Wall,
				fmt.Sprintf("the store accepted token %d on %q after token %d (writer %s)", e.Token, e.Key, top, e.Detail)})
			continue
		}
		highest[e.Key] = e.Token
	}
}

// checkLate looks at the writes that holders made with the token of a grant
// they held when cut off for longer than the lease. A write is late when the
// store decided on it after the cut-off plus the lease: the store's log, not
// the worker's, says when, since a worker stopped between sending a write
// and logging its answer logs it only when it runs again.
func checkLate(r *Report, cfg Config, run *run, grants []*grant) {
	cuts := run.cuts()
	horizon := run.horizon()
	for _, g := range grants {
		for _, c := range cuts[g.worker] {
			if c.detail == history.FaultKill || !c.longerThan(cfg.Lease, horizon) ||
				!g.heldAt(c.start) {
				continue
			}
			lateFrom := c.start.Add(cfg.Lease)
			for i, w := range run.store {
				if w.Token != g.token || writer(w) != g.worker || !w.Wall.After(lateFrom) {
					continue
				}
				r.LateWrites++
				if w.Kind == history.WriteRejected {
					r.LateRejected++
				} else if newer := newerAccepted(run.store[:i], g.token); newer != 0 {
					r.Violations = append(r.Violations, Violation{LateWriteAccepted, w.Wall,
						fmt.Sprintf("%s wrote with token %d after being cut off (%s at %s) and the store accepted it, though it had accepted token %d",
							g.worker, g.token, c.detail, c.start.Format("15:04:05.000"), newer)})
				}
			}
		}
	}
}

// writer returns the worker a store decision was for.
func writer(e history.Event) string {
	return strings.TrimSuffix(e.Detail, UnfencedSuffix)
}

// newerAccepted returns a token above token among the store's accepted
// writes in decisions, or 0.
func newerAccepted(decisions []history.Event, token int64) int64 {
	for _, e := range decisions {
		if e.Kind == history.WriteAccepted && e.Token > token {
			return e.Token
		}
	}
	return 0
}

// checkBack measures, for every fault that hit a holder or a server, how
// long until a worker other than the one hit (any worker, for a server
// fault) was granted; after a holder was killed it must be within Lease +
// BackBound. For a size-1 semaphore that is when the permit came back.
func checkBack(r *Report, cfg Config, run *run, grants []*grant) {
	for _, f := range run.faults {
		if recovery(f) {
			continue
		}
		_, onWorker := run.workers[f.Target]
		held := holding(grants, f.Target, f.Wall)
		if held {
			r.HolderFaults++
		} else if onWorker {
			continue // a waiter was hit: no permits to come back
		}
		next, ok := nextGrant(grants, f.Target, f.Wall)
		if !ok {
			if f.Detail == history.FaultKill && held {
				r.Violations = append(r.Violations, Violation{PermitsNotBack, f.Wall,
					fmt.Sprintf("nobody was granted after %s of holder %s", f.Detail, f.Target)})
			}
			continue
		}
		back := next.Sub(f.Wall)
		r.PermitsBack = append(r.PermitsBack, back)
		if f.Detail == history.FaultKill && held && back > cfg.Lease+cfg.BackBound {
			r.Violations = append(r.Violations, Violation{PermitsNotBack, f.Wall,
				fmt.Sprintf("permits of killed holder %s came back after %v, more than lease %v + %v", f.Target, back, cfg.Lease, cfg.BackBound)})
		}
	}
}

// nextGrant returns the first grant after at to a worker other than who.
func nextGrant(grants []*grant, who string, at time.Time) (time.Time, bool) {
	var first time.Time
	for _, g := range grants {
		if g.worker != who && g.start.After(at) && (first.IsZero() || g.start.Before(first)) {
			first = g.start
		}
	}
	return first, !first.IsZero()
}

// holding says whether who held a grant at instant at.
func holding(grants []*grant, who string, at time.Time) bool {
	for _, g := range grants {
		if g.worker == who && g.heldAt(at) {
			return true
		}
	}
	return false
}

// heldAt says whether the worker believed it held g at instant at: granted
// before, and not yet releasing.
func (g *grant) heldAt(at time.Time) bool {
	return !g.start.After(at) && (g.releasedAt.IsZero() || g.releasedAt.After(at))
}

// checkWaiters reports acquires that never ended and workers that neither
// exited nor were killed.
func checkWaiters(r *Report, run *run) {
	killed := map[string]bool{}
	for _, f := range run.faults {
		if f.Detail == history.FaultKill {
			killed[f.Target] = true
		}
	}
	for name, events := range run.workers {
		var waiting *history.Event
		exited := false
		for i, e := range events {
			switch e.Kind {
			case history.AcquireStart:
				waiting = &events[i]
			case history.Granted, history.AcquireFailed:
				waiting = nil
			case history.Exit:
				exited = true
			}
		}
		if killed[name] {
			continue
		}
		if waiting != nil {
			r.Violations = append(r.Violations, Violation{Stranded, waiting.Wall,
				fmt.Sprintf("%s started an acquire that neither succeeded nor failed", name)})
		}
		if !exited {
			r.Violations = append(r.Violations, Violation{Vanished, events[len(events)-1].Wall,
				fmt.Sprintf("%s never logged its exit and was not killed", name)})
		}
	}
}
