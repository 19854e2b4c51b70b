package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
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
				fmt.Fprintf(w, "Benchmark%s%s\t%s\t%s\n", name, procsSuffix(), r.String(), r.MemString())
			}
		}
	}
	return nil
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
