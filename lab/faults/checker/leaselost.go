package checker

import (
	"fmt"
	"strings"
	"time"

	"github.com/semacat/sem/lab/faults/history"
)

// LeaseLostText is what the error of a release says when the strategy
// reports the grant's lease lost (etcdsem's and redissem's ErrLeaseLost
// both say it).
const LeaseLostText = "lease lost"

// checkLeaseLost reports releases whose error says the lease was lost
// although nothing could have ended it: the worker was not cut off for
// longer than the Cutoff during the grant, no server was killed, and no
// server stalled for longer than the Cutoff. A server that stalls briefly
// answers late, and clients retry; a strategy that then takes its own
// retried release for a lost grant fails this check.
func checkLeaseLost(r *Report, cfg Config, run *run) {
	cuts := run.cuts()
	horizon := run.horizon()
	stalls := run.stalls()
	for name, events := range run.workers {
		var granted time.Time
		for _, e := range events {
			switch {
			case e.Kind == history.Granted:
				granted = e.Wall
			case e.Kind == history.Released && strings.Contains(e.Err, LeaseLostText) && !granted.IsZero():
				if !lossExplained(cfg, run.faults, append(cuts[name], stalls...), granted, e.Wall, horizon) {
					r.Violations = append(r.Violations, Violation{FalseLeaseLost, e.Wall,
						fmt.Sprintf("%s's release of token %d said its lease was lost, though nothing could have ended it: %s", name, e.Token, e.Err)})
				}
			}
		}
	}
}

// lossExplained says whether a lease held from granted to released could
// have ended: a server was killed, or a cut (of the worker, or a stall of
// a server) longer than the Cutoff overlapped the grant.
func lossExplained(cfg Config, faults []history.Event, cuts []cut, granted, released, horizon time.Time) bool {
	for _, f := range faults {
		if f.Detail == history.FaultServer && f.Wall.Before(released) {
			return true
		}
	}
	for _, c := range cuts {
		end := c.end
		if end.IsZero() {
			end = horizon
		}
		if c.start.Before(released) && end.After(granted) && c.longerThan(cfg.Cutoff, horizon) {
			return true
		}
	}
	return false
}

// stalls returns the spans during which a server stalled.
func (r *run) stalls() []cut {
	var out []cut
	for _, f := range r.faults {
		switch f.Detail {
		case history.FaultStall:
			out = append(out, cut{start: f.Wall, detail: f.Detail})
		case history.FaultStallEnd:
			if n := len(out); n > 0 && out[n-1].end.IsZero() {
				out[n-1].end = f.Wall
			}
		}
	}
	return out
}
