package check

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Inside is who is doing what at one point of a log: every action begun by
// [Run.Act] and not yet ended.
type Inside struct {
	doing map[string]map[string]Event // what -> who -> the event that began it
}

// Count reports how many goroutines are doing what.
func (in *Inside) Count(what string) int { return len(in.doing[what]) }

// Who lists, sorted, the goroutines doing what.
func (in *Inside) Who(what string) []string {
	return slices.Sorted(maps.Keys(in.doing[what]))
}

func (in *Inside) apply(e Event) {
	if e.End {
		delete(in.doing[e.What], e.Who)
		return
	}
	if in.doing[e.What] == nil {
		in.doing[e.What] = map[string]Event{}
	}
	in.doing[e.What][e.Who] = e
}

// Replay calls f with each event of log, in order, and with who was doing
// what just before it; it returns f's first error.
func Replay(log []Event, f func(e Event, in *Inside) error) error {
	in := &Inside{doing: map[string]map[string]Event{}}
	for _, e := range log {
		if err := f(e, in); err != nil {
			return err
		}
		in.apply(e)
	}
	return nil
}

// Right is a right solution to a problem, and its name.
type Right[S any] struct {
	Name     string
	Solution S
}

// Wrong is a wrong solution to a problem, and a piece of the verdict that
// must reject it.
type Wrong[S any] struct {
	Name     string
	Solution S
	Want     string
}

// Judge asserts that p accepts each right solution and rejects each wrong
// one with a verdict containing its Want, each in a subtest of its name.
// Under the race detector, it also makes free runs of each right
// solution, which must pass without a data race.
func Judge[S any](t *testing.T, p Problem[S], rights []Right[S], wrongs ...Wrong[S]) {
	t.Helper()
	for _, r := range rights {
		t.Run(r.Name, func(t *testing.T) {
			require.NoError(t, p.Verify(t, r.Solution))
			if raceEnabled { // a right answer has no data race, nor has the scenario
				for seed := range uint64(freeRuns) {
					require.NoError(t, p.FreeRun(t, seed, r.Solution))
				}
			}
		})
	}
	for _, w := range wrongs {
		t.Run(w.Name, func(t *testing.T) {
			err := p.Verify(t, w.Solution)
			require.Error(t, err, "the checker accepted a wrong solution")
			t.Logf("rejected: %v", err)
			assert.Contains(t, err.Error(), w.Want)
		})
	}
}

// After reports the first time a goroutine begins then before any
// goroutine has ended first: then must come after first.
func After(log []Event, then, first string) error {
	done := false
	for _, e := range log {
		switch {
		case e.What == first && e.End:
			done = true
		case e.What == then && !e.End && !done:
			return fmt.Errorf("%v, before any %s ended", e, first)
		}
	}
	return nil
}

// AtMost reports the first time more than most goroutines are doing what
// at once.
func AtMost(log []Event, what string, most int) error {
	return Replay(log, func(e Event, in *Inside) error {
		if e.What == what && !e.End && in.Count(what) >= most {
			return fmt.Errorf("%v while %v were already at it: more than %d at once", e, in.Who(what), most)
		}
		return nil
	})
}
