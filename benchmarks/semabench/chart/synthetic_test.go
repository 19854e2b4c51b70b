package chart

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/benchmarks/semabench/report"
)

// syntheticRun is a run made up for the chart tests, shaped like the
// harness's (two rounds of the sweeps and the probe these charts draw, for
// every contender) with figures from a formula, so that the published
// module carries no measured results: a contender's time grows with the
// goroutines as its own power, and its waits with its time.
func syntheticRun(t *testing.T) *report.Run {
	t.Helper()
	impls := []struct {
		name      string
		base, exp float64
		unitOnly  bool
	}{
		{"chan", 40, 0.5, true}, {"chansem", 45, 0.55, false}, {"condsem", 30, 0.9, false},
		{"condsem-fair", 60, 1.2, false}, {"mutex", 8, 0.3, true}, {"spinsem", 25, 0.4, false},
		{"weighted", 35, 0.5, false}, {"xsync", 50, 0.6, false},
	}
	var b strings.Builder
	b.WriteString("go: go1.26.0\n# semabench -rounds 2 (synthetic, for the chart tests)\ngoos: linux\ngoarch: amd64\npkg: github.com/semacat/sem/benchmarks\ncpu: Synthetic CPU\n")
	line := func(name string, metrics string) {
		fmt.Fprintf(&b, "%s-2\t1\t%s\t0 B/op\t0 allocs/op\n", name, metrics)
	}
	for round := range 2 {
		wobble := 1 + 0.03*float64(round)
		for _, im := range impls {
			ns := func(g int) float64 { return im.base * math.Pow(1+float64(g)/8, im.exp) * wobble }
			waits := func(g int) (p50, p99, max float64) { return 20 * ns(g), 150 * ns(g), 900 * ns(g) }
			for _, g := range []int{2, 4, 8, 16, 32, 64} {
				sc := fmt.Sprintf("goroutines=%d/size=1/work=0/impl=%s", g, im.name)
				p50, p99, max := waits(g)
				line("BenchmarkSemaphore/"+sc, fmt.Sprintf("%.1f ns/op\t60.00 warmup-ms", ns(g)))
				line("BenchmarkLatency/"+sc, fmt.Sprintf("%.4f jain\t%.0f max-ns\t%.0f p50-ns\t%.0f p99-ns", 0.99-im.exp/10, max, p50, p99))
			}
			if im.name == "mutex" {
				continue // a size of 1 at most
			}
			for _, g := range []int{2, 8, 32, 128, 512} {
				sc := fmt.Sprintf("goroutines=%d/size=4/work=yield/impl=%s", g, im.name)
				p50, p99, max := waits(g)
				line("BenchmarkSemaphore/"+sc, fmt.Sprintf("%.1f ns/op\t60.00 warmup-ms", 3*ns(g)))
				line("BenchmarkLatency/"+sc, fmt.Sprintf("%.4f jain\t%.0f max-ns\t%.0f p50-ns\t%.0f p99-ns", 0.99-im.exp/10, 3*max, 3*p50, 3*p99))
			}
			if im.unitOnly {
				continue // the probe asks for all the permits at once
			}
			sc := "starvation/goroutines=16/size=4/impl=" + im.name
			p50, p99, max := waits(16)
			line("BenchmarkSemaphore/"+sc, fmt.Sprintf("%.1f ns/op\t60.00 warmup-ms", ns(16)))
			line("BenchmarkLatency/"+sc, fmt.Sprintf("%.0f big-max-ns\t%.4f jain\t%.0f max-ns\t%.0f p50-ns\t%.0f p99-ns", 40*max*im.exp, 0.95, max, p50, p99))
		}
	}
	run, err := report.Parse(strings.NewReader(b.String()), "synthetic")
	require.NoError(t, err)
	return run
}
