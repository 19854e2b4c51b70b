package benchmarks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem"
)

// yoursSem marks the semaphores of the caller's contender.
type yoursSem struct{ rawChan }

// race runs a contender of the caller's in every scenario it can run.
func TestRaceRunsYours(t *testing.T) {
	yours := Contender{Name: "yours", New: func(size int64) sem.Semaphore { return yoursSem{make(rawChan, size)} }, UnitOnly: true}
	ran := map[string]bool{}
	testing.Benchmark(func(b *testing.B) {
		race(b, Scenarios, func(sc Scenario, _ *testing.B, s sem.Semaphore) {
			if _, ok := s.(yoursSem); ok {
				ran[sc.Name] = true
			}
		}, []Contender{yours})
	})
	want := map[string]bool{}
	for _, sc := range Scenarios {
		if yours.Skip(sc) == "" {
			want[sc.Name] = true
		}
	}
	require.NotEmpty(t, want)
	assert.Equal(t, want, ran)
}

func TestRaceRefusesAmbiguousContenders(t *testing.T) {
	newSem := func(size int64) sem.Semaphore { return make(rawChan, size) }
	for _, tc := range []struct {
		c    Contender
		want string
	}{
		{Contender{New: newSem}, "benchmarks: Race: contender 8 has no Name"},
		{Contender{Name: "mine"}, `benchmarks: Race: contender "mine" has no New`},
		{Contender{Name: "weighted", New: newSem}, `benchmarks: Race: two contenders are named "weighted"; give yours a name of its own`},
	} {
		assert.PanicsWithValue(t, tc.want, func() { mustBeDistinct(append(Catalog(), tc.c)) })
	}
}
