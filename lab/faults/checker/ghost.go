package checker

import (
	"fmt"
	"time"

	"github.com/semacat/sem/lab/faults/history"
)

// checkGhosts compares the permits in use, as probes of the server saw
// them, with what the workers could hold at that moment, and reports
// permits in use that nobody could hold: a request the server granted
// after its client had given up on it and withdrawn it. Such a grant is
// refreshed by nobody and blocks the others until its lease runs out.
//
// A worker could hold the permits of a grant from GrantLag before it
// logged the grant (the server granted it, the answer was on its way) until
// its release returned (a lease later if the release failed; to the end of
// the run if it never returned); and the permits of an acquire while it
// ran, since an acquire that fails withdraws its request before it
// returns. Probes that see more in use than that, one after another for
// longer than GrantLag, make one violation: a shorter excess may be a
// grant whose answer took longer than GrantLag to reach its worker.
func checkGhosts(r *Report, cfg Config, run *run) {
	spans := run.mayHold(cfg)
	var first, last *history.Event
	flush := func() {
		if first != nil && last.Wall.Sub(first.Since) > cfg.GrantLag {
			r.Violations = append(r.Violations, Violation{GhostGrant, first.Wall,
				fmt.Sprintf("%d permits in use from %s to %s while the workers could hold %d: granted to nobody",
					first.Weight, first.Since.Format("15:04:05.000"), last.Wall.Format("15:04:05.000"), couldHold(spans, first.Since, first.Wall))})
		}
		first, last = nil, nil
	}
	for i, p := range run.probes {
		if p.Weight <= couldHold(spans, p.Since, p.Wall) {
			flush()
			continue
		}
		if first == nil {
			first = &run.probes[i]
		}
		last = &run.probes[i]
	}
	flush()
}

// span is a time during which a worker could hold weight permits.
type span struct {
	start, end time.Time
	weight     int64
}

// mayHold returns the spans during which each worker could hold permits
// in the server's books (see checkGhosts).
func (r *run) mayHold(cfg Config) []span {
	horizon := r.horizon()
	var out []span
	for _, events := range r.workers {
		var acquiring, holding *span
		for _, e := range events {
			switch e.Kind {
			case history.AcquireStart:
				acquiring = &span{start: e.Wall, weight: e.Weight}
			case history.AcquireFailed:
				if acquiring != nil {
					acquiring.end = e.Wall
					out = append(out, *acquiring)
					acquiring = nil
				}
			case history.Granted:
				acquiring = nil
				holding = &span{start: e.Wall.Add(-cfg.GrantLag), weight: e.Weight}
			case history.Released:
				if holding != nil {
					holding.end = e.Wall
					if e.Err != "" {
						holding.end = e.Wall.Add(cfg.Lease)
					}
					out = append(out, *holding)
					holding = nil
				}
			}
		}
		for _, s := range []*span{acquiring, holding} {
			if s != nil {
				s.end = horizon
				out = append(out, *s)
			}
		}
	}
	return out
}

// couldHold sums the weights of the spans that overlap [from, to].
func couldHold(spans []span, from, to time.Time) int64 {
	var n int64
	for _, s := range spans {
		if !s.start.After(to) && !s.end.Before(from) {
			n += s.weight
		}
	}
	return n
}

// countOvertaken counts the held requests that reached the server after
// their acquire had failed at the client, which withdrew them first: the
// first end of an acquire its worker logged after the hold is a failure,
// logged before the delivery.
func countOvertaken(r *Report, run *run) {
	held := map[string]time.Time{}
	for _, f := range run.faults {
		switch f.Detail {
		case history.FaultHold:
			held[f.Target] = f.Wall
		case history.FaultDelivered:
			if at, ok := held[f.Target]; ok && failedBefore(run.workers[f.Target], at, f.Wall) {
				r.Overtaken++
			}
			delete(held, f.Target)
		}
	}
}

// failedBefore says whether the first acquire to end after from ended in
// failure, before to.
func failedBefore(events []history.Event, from, to time.Time) bool {
	for _, e := range events {
		if e.Wall.Before(from) {
			continue
		}
		switch e.Kind {
		case history.Granted:
			return false
		case history.AcquireFailed:
			return e.Wall.Before(to)
		}
	}
	return false
}
