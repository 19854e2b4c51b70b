package benchmarks

import (
	"flag"
	"slices"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var long = flag.Bool("long", false, "also run LongScenarios (make bench-long)")

func scenarios() []Scenario {
	if *long {
		return slices.Concat(Scenarios, LongScenarios)
	}
	return Scenarios
}

// BenchmarkSemaphore runs every scenario against every contender that
// supports it: ns/op, B/op, allocs/op (and fails/op where attempts may fail).
// Compare contenders with `benchstat -col /impl`.
func BenchmarkSemaphore(b *testing.B) {
	race(b, scenarios(), Scenario.Run, nil)
}

// BenchmarkLatency runs every scenario again, timing each wait: p50-ns,
// p99-ns, max-ns, jain and big-max-ns. It is a separate pass so that reading
// the clock never inflates BenchmarkSemaphore's ns/op.
func BenchmarkLatency(b *testing.B) {
	race(b, scenarios(), Scenario.RunLatency, nil)
}
