package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/benchmarks"
)

// A round runs in a child process: semabench starts itself again with
// -round, and the child runs every benchmark once through
// testing.Benchmark and prints go test -bench's output format. semabench
// thus needs neither the source nor the go command, so it runs from the
// module cache (go run ...@version) as well as from a clone.

// round runs one round of the race into w, in go test -bench's format:
// the configuration lines, then one result line per benchmark whose name,
// without its Benchmark prefix, matches o.bench.
func round(o options, w io.Writer) error {
	match, err := regexp.Compile(o.bench)
	if err != nil {
		return fmt.Errorf("-bench: %w", err)
	}
	testing.Init()
	if err := flag.Set("test.benchtime", o.benchtime); err != nil {
		return fmt.Errorf("-benchtime: %w", err)
	}
	fmt.Fprintf(w, "goos: %s\ngoarch: %s\npkg: github.com/semacat/sem/benchmarks\n", runtime.GOOS, runtime.GOARCH)
	if cpu := cpuName(); cpu != "" {
		fmt.Fprintf(w, "cpu: %s\n", cpu)
	}
	passes := []struct {
		name string
		run  func(benchmarks.Scenario, *testing.B, sem.Semaphore)
	}{
		{"Semaphore", benchmarks.Scenario.Run},
		{"Latency", benchmarks.Scenario.RunLatency},
	}
	cs, err := contenders(o)
	if err != nil {
		return fmt.Errorf("-impl: %w", err)
	}
	for _, pass := range passes {
		for _, sc := range scenarios(o) {
			for _, c := range cs {
				name := pass.name + "/" + sc.Name + "/impl=" + c.Name
				if c.Skip(sc) != "" || !match.MatchString(name) {
					continue
				}
				r := testing.Benchmark(func(b *testing.B) {
					b.ReportAllocs()
					pass.run(sc, b, c.New(sc.Size))
				})
				line, err := resultLine(name, o.benchtime, r)
				if err != nil {
					fmt.Fprintln(os.Stderr, "semabench: skipped:", err)
					continue
				}
				fmt.Fprint(w, line)
			}
		}
	}
	return nil
}

// resultLine is the go test -bench line of the result r of benchmark name,
// or an error when r is no result: testing.Benchmark returns one of no
// iteration when the benchmark failed, as a contended scenario does when
// no op completed in its measurement (a -benchtime shorter than one op
// of a long hold), and its line would say "0 NaN ns/op".
func resultLine(name, benchtime string, r testing.BenchmarkResult) (string, error) {
	if r.N <= 0 {
		return "", fmt.Errorf("Benchmark%s failed or completed no op in -benchtime %s; "+
			"a longer -benchtime lets every op of a long hold complete", name, benchtime)
	}
	for unit, x := range r.Extra {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", fmt.Errorf("Benchmark%s reported %v %s", name, x, unit)
		}
	}
	return fmt.Sprintf("Benchmark%s%s\t%s\t%s\n", name, procsSuffix(), r.String(), r.MemString()), nil
}

// scenarios is the scenarios a run of o races.
func scenarios(o options) []benchmarks.Scenario {
	if o.long {
		return slices.Concat(benchmarks.Scenarios, benchmarks.LongScenarios)
	}
	return benchmarks.Scenarios
}

// procsSuffix is the suffix go test gives benchmark names: -GOMAXPROCS,
// or nothing when it is 1.
func procsSuffix() string {
	if n := runtime.GOMAXPROCS(0); n != 1 {
		return fmt.Sprintf("-%d", n)
	}
	return ""
}

// cpuName is the processor's model name, as go test prints it, where the
// system says it (Linux); "" elsewhere.
func cpuName() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if key, value, ok := strings.Cut(s.Text(), ":"); ok && strings.TrimSpace(key) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return ""
}
