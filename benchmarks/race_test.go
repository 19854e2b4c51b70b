package benchmarks

import (
	"fmt"
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

// The references race first, x/sync leading: benchstat -col /impl takes
// the first column it meets as the base of every ratio.
func TestCatalogRacesTheReferencesFirst(t *testing.T) {
	var names []string
	for _, c := range Catalog() {
		names = append(names, c.Name)
		if !c.Reference {
			break
		}
	}
	assert.Equal(t, []string{"xsync", "chan", "mutex", "chansem"}, names)
}

// SEMACAT_IMPL narrows the race to yours and the references.
func TestRaceFilter(t *testing.T) {
	t.Setenv(ImplEnv, "^yours$")
	yours := Contender{Name: "yours", New: func(size int64) sem.Semaphore { return yoursSem{make(rawChan, size)} }, UnitOnly: true}
	ran := map[string]bool{}
	testing.Benchmark(func(b *testing.B) {
		race(b, Scenarios, func(_ Scenario, _ *testing.B, s sem.Semaphore) {
			ran[fmt.Sprintf("%T", s)] = true
		}, []Contender{yours})
	})
	assert.Equal(t, map[string]bool{
		"benchmarks.yoursSem": true, "*semaphore.Weighted": true, "benchmarks.rawChan": true, "*benchmarks.mutex": true,
	}, ran)
}

func TestSelect(t *testing.T) {
	names := func(cs []Contender) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	for pattern, want := range map[string][]string{
		"":         names(Catalog()),
		"weighted": {"xsync", "chan", "mutex", "weighted"},
		"^cond":    {"xsync", "chan", "mutex", "condsem", "condsem-fair"},
		"^chan$":   {"xsync", "chan", "mutex"},
	} {
		got, err := Select(Catalog(), pattern)
		require.NoError(t, err, pattern)
		assert.Equal(t, want, names(got), pattern)
	}
	_, err := Select(Catalog(), "chansme")
	assert.EqualError(t, err, `benchmarks: contender filter "chansme" matches no contender; `+
		`the contenders are xsync, chan, mutex, chansem, condsem, condsem-fair, spinsem, weighted`)
	_, err = Select(Catalog(), "(")
	assert.ErrorContains(t, err, `benchmarks: contender filter "(": error parsing regexp`)
}
