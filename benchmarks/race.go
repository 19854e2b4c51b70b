package benchmarks

import (
	"fmt"
	"os"
	"testing"

	"github.com/semacat/sem"
)

// Race runs every scenario of Scenarios against the catalog (see Catalog)
// and against yours, as sub-benchmarks of b named scenario/impl=Name, each
// reporting ns/op, B/op and allocs/op (and fails/op where attempts may
// fail). In each scenario the references race first, then semacat's
// strategies, then yours. A contender sits out a scenario it cannot run
// (see Contender.Skip).
//
// The environment variable SEMACAT_IMPL, a regular expression, narrows the
// race to the contenders whose name it matches, and the references (see
// Select): SEMACAT_IMPL='tokens|weighted' go test -bench Race races yours
// against weighted, x/sync, a raw channel and sync.Mutex. Narrowing with
// -bench instead would drop the references, the base of every ratio.
// A filter that does not compile or matches no contender fails b.
//
// Race panics if one of yours has no Name or New, or reuses a name of the
// catalog or of another of yours: benchstat could not tell them apart.
func Race(b *testing.B, yours ...Contender) {
	race(b, Scenarios, Scenario.Run, yours)
}

// RaceLatency runs the same race as Race again, timing each wait of
// Acquire: p50-ns, p99-ns, max-ns, jain and big-max-ns. It is a separate
// pass so that reading the clock never inflates Race's ns/op.
func RaceLatency(b *testing.B, yours ...Contender) {
	race(b, Scenarios, Scenario.RunLatency, yours)
}

// ImplEnv is the environment variable that narrows Race and RaceLatency
// to some contenders (see Race).
const ImplEnv = "SEMACAT_IMPL"

func race(b *testing.B, scenarios []Scenario, run func(Scenario, *testing.B, sem.Semaphore), yours []Contender) {
	all := append(Catalog(), yours...)
	mustBeDistinct(all)
	all, err := Select(all, os.Getenv(ImplEnv))
	if err != nil {
		b.Fatalf("%s: %v", ImplEnv, err)
	}
	for _, sc := range scenarios {
		for _, c := range all {
			if c.Skip(sc) != "" {
				continue
			}
			b.Run(sc.Name+"/impl="+c.Name, func(b *testing.B) {
				b.ReportAllocs()
				run(sc, b, c.New(sc.Size))
			})
		}
	}
}

// mustBeDistinct panics unless every contender has a New and a name of
// its own.
func mustBeDistinct(all []Contender) {
	seen := make(map[string]bool, len(all))
	for i, c := range all {
		switch {
		case c.Name == "":
			panic(fmt.Sprintf("benchmarks: Race: contender %d has no Name", i))
		case c.New == nil:
			panic(fmt.Sprintf("benchmarks: Race: contender %q has no New", c.Name))
		case seen[c.Name]:
			panic(fmt.Sprintf("benchmarks: Race: two contenders are named %q; give yours a name of its own", c.Name))
		}
		seen[c.Name] = true
	}
}
