package oracle

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// Config says how many histories [Check] records and how large they are.
type Config struct {
	Histories int    // histories to record and check
	Workers   int    // goroutines calling the semaphore in each history
	Ops       int    // calls per goroutine
	MaxSize   int64  // sizes are drawn from 1..MaxSize
	Seed      uint64 // seed of the first history's random choices
	Handles   int    // handles on each semaphore (CheckHandles); 0 means 1
	// LateCancel, if set, is the longest delay of an Acquire's late
	// cancellation, drawn at random, to land it among round trips of a
	// distributed semaphore; zero means a fixed lateCancel.
	LateCancel time.Duration
	// Patience is how long a history may run before every context is
	// canceled, and how long its calls may then take to return before the
	// history counts as hung. Zero means safetyTimeout.
	Patience time.Duration
}

// checkTimeout bounds porcupine's search on one history; a search that
// takes longer counts as unknown.
const checkTimeout = 10 * time.Second

// Tally is what [Check] found.
type Tally struct {
	Histories    int // histories recorded
	Linearizable int // porcupine found an order the model accepts
	Not          int // porcupine proved there is none
	Unknown      int // the search timed out
	Hung         int // calls still running after every context was canceled
	// Example describes the first history that was not linearizable, or
	// the first that hung, for the report.
	Example string
	// Outcomes counts the calls of the histories that did not hang by how
	// they ended ("Acquire ok", "Release (over) panicked", ...), to show
	// which cases the histories reached.
	Outcomes map[string]int
}

// Check records cfg.Histories histories of goroutines calling semaphores
// built by newSem, and checks each against [Model].
func Check(newSem NewFunc, cfg Config) Tally {
	cfg.Handles = 1
	return CheckHandles(single(newSem), cfg)
}

// CheckHandles is [Check] for a semaphore that callers reach through
// several handles, cfg.Handles of them (at most 4), opened by open: the
// goroutines of a history are spread over them.
func CheckHandles(open OpenFunc, cfg Config) Tally {
	if cfg.Handles > maxHandles {
		panic(fmt.Sprintf("oracle: CheckHandles: %d handles, more than %d", cfg.Handles, maxHandles))
	}
	t := Tally{Outcomes: map[string]int{}}
	for i := range cfg.Histories {
		seed := cfg.Seed + uint64(i)
		size := 1 + rand.New(rand.NewPCG(seed, 0)).Int64N(cfg.MaxSize)
		ops, hung := history(open, size, cfg, seed)
		t.Histories++
		if hung {
			t.Hung++
			if t.Example == "" {
				t.Example = fmt.Sprintf("history of seed %d, size %d: calls never returned after every context was canceled", seed, size)
			}
			continue
		}
		countOutcomes(t.Outcomes, ops)
		switch porcupine.CheckOperationsTimeout(Model(size), ops, checkTimeout) {
		case porcupine.Ok:
			t.Linearizable++
		case porcupine.Illegal:
			t.Not++
			if t.Example == "" {
				t.Example = fmt.Sprintf("history of seed %d, size %d, not linearizable:\n%s", seed, size, Describe(ops))
			}
		default:
			t.Unknown++
		}
	}
	return t
}

// Describe lists the operations of a history in the order they began,
// each with the moments it began and returned, and the handle it called
// when the history had several.
func Describe(ops []porcupine.Operation) string {
	ops = slices.Clone(ops)
	slices.SortFunc(ops, func(a, b porcupine.Operation) int { return int(a.Call - b.Call) })
	handles := slices.ContainsFunc(ops, func(o porcupine.Operation) bool { return o.Input.(input).handle > 0 })
	var b strings.Builder
	for _, o := range ops {
		in := o.Input.(input)
		on := ""
		if handles && in.kind != cancel {
			on = fmt.Sprintf(" h%d", in.handle)
		}
		fmt.Fprintf(&b, "\t[%3d,%3d] g%d%s: %s\n", o.Call, o.Return, o.ClientId, on, describe(in, o.Output.(result)))
	}
	return b.String()
}

// countOutcomes adds the calls of a history to counts, by how they ended.
// An Acquire is counted apart when its context was done before the call,
// and when it was canceled while the call was in flight (where a grant and
// the cancellation race).
func countOutcomes(counts map[string]int, ops []porcupine.Operation) {
	canceledAt := map[int]int64{}
	for _, o := range ops {
		if in := o.Input.(input); in.kind == cancel {
			canceledAt[in.id] = o.Call
		}
	}
	for _, o := range ops {
		in := o.Input.(input)
		name := [...]string{acquire: "Acquire", try: "TryAcquire", release: "Release", cancel: "cancel"}[in.kind]
		switch at, canceled := canceledAt[in.id]; {
		case in.over:
			name += " (over)"
		case in.kind != acquire:
		case in.doneBefore:
			name += " (done ctx)"
		case canceled && at < o.Return:
			name += " (canceled in flight)"
		}
		counts[name+" "+resultNames[o.Output.(result)]]++
	}
}

// String is the tally as one row of a report.
func (t Tally) String() string {
	return fmt.Sprintf("histories %d, linearizable %d, not %d, unknown %d, hung %d", t.Histories, t.Linearizable, t.Not, t.Unknown, t.Hung)
}
