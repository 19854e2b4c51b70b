// Command semabench races semacat's semaphore strategies head to head
// against the ecosystem's references (golang.org/x/sync/semaphore, a raw
// buffered channel, sync.Mutex) on your machine, and reports the race. Run
// it without a clone:
//
//	go run github.com/semacat/sem/benchmarks/semabench@latest -out results
//
// It runs every scenario of package benchmarks against every contender,
// -rounds times, each round in a separate process so that slow drift of the
// machine hits every contender alike. It prints a line per scenario as
// results arrive, then a summary table within 100 columns, and writes into
// -out:
//
//	results.txt  the raw go test -bench output, for benchstat
//	results.md   a summary table and a table per scenario
//	*.svg        charts: cost and p99 wait against goroutines, wait
//	             percentiles, the starvation probe
//	blocks.md    with -blocks only: the summary in the markdown blocks a
//	             page can embed
//
// -impl races only the contenders whose name it matches, and always the
// references (x/sync, a raw channel, sync.Mutex), the base of every ratio.
//
// With -from it skips the run and reports an existing results.txt, or the
// go test -bench output of a benchmark of yours that calls benchmarks.Race
// to race a semaphore of your own:
//
//	go test -run '^$' -bench Race -count 6 >race.txt
//	go run github.com/semacat/sem/benchmarks/semabench@latest -from race.txt -out race
//
// It reads the input before it writes anything, and refuses to overwrite a
// results.txt in -out that differs from it. A result of no iteration, or
// with a NaN or infinite value, is dropped with a warning; a round prints
// none (it says on stderr which benchmark it skipped).
//
// results.md quotes the command that made it: go run of semabench at its
// module version when it was built from one, so that anyone can rerun it.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"
	"gonum.org/v1/plot"

	"github.com/semacat/sem/benchmarks"
	"github.com/semacat/sem/benchmarks/semabench/chart"
	"github.com/semacat/sem/benchmarks/semabench/report"
)

type options struct {
	out, bench, benchtime, from, command, impl string
	rounds                                     int
	long, blocks                               bool
	// round makes this process a child that runs one round (see round).
	round bool
}

func main() {
	var o options
	flag.StringVar(&o.out, "out", "semabench-results", "directory to write the report, charts and results.txt into")
	flag.IntVar(&o.rounds, "rounds", 6, "how many times to run the suite; benchstat needs 6 for a 95% interval")
	flag.StringVar(&o.benchtime, "benchtime", "25ms", "go test -benchtime of each benchmark in each round")
	flag.BoolVar(&o.long, "long", false, "also run the long scenarios (more goroutine counts)")
	flag.StringVar(&o.bench, "bench", ".", "regexp: run the benchmarks whose name, such as Semaphore/uncontended/size=1/impl=weighted, matches")
	flag.StringVar(&o.impl, "impl", "", "regexp: race only the contenders whose name matches, and the references (x/sync, chan, mutex)")
	flag.StringVar(&o.from, "from", "", "report this results.txt, or the go test -bench output of a benchmark calling benchmarks.Race, instead of running the benchmarks")
	flag.StringVar(&o.command, "command", "", "the command line to quote in results.md and blocks.md (default: this semabench command line)")
	flag.BoolVar(&o.blocks, "blocks", false, "also write blocks.md, the markdown blocks a page can embed")
	flag.BoolVar(&o.round, "round", false, "run one round and print its results (semabench starts itself so)")
	flag.Parse()
	if o.command == "" {
		o.command = commandLine(os.Args[1:])
	}
	if o.round {
		if err := round(o, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "semabench -round:", err)
			os.Exit(1)
		}
		return
	}
	start := time.Now()
	if err := run(o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "semabench:", err)
		os.Exit(1)
	}
	fmt.Printf("done in %s\n", time.Since(start).Round(time.Second))
}

func run(o options, stdout io.Writer) error {
	if _, err := contenders(o); err != nil {
		return fmt.Errorf("-impl: %w", err)
	}
	results := filepath.Join(o.out, "results.txt")
	if o.from != "" {
		// Nothing is written before the input proves to be a race's results,
		// and no other file is overwritten with it.
		if _, err := parseResults(o.from, o.from); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("-from: %w", err)
		} else if err != nil {
			return err
		}
		if err := mayCopy(o.from, results); err != nil {
			return fmt.Errorf("-from: %w", err)
		}
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	if o.from == "" {
		if err := measure(o, results, stdout); err != nil {
			return err
		}
	} else if err := copyFile(o.from, results); err != nil {
		return fmt.Errorf("-from: %w", err)
	}
	return writeReport(o, results, stdout)
}

// mayCopy refuses to copy from over to when to is another file with other
// content: a results.txt of an earlier run, say.
func mayCopy(from, to string) error {
	dst, err := os.Stat(to)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	src, err := os.Stat(from)
	if err != nil || os.SameFile(src, dst) {
		return err
	}
	a, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(to)
	if err != nil || bytes.Equal(a, b) {
		return err
	}
	return fmt.Errorf("%s exists and differs from %s: give -out a new directory, or remove it", to, from)
}

// commandLine is semabench's command line, quoted for a shell where needed,
// as a command that reruns it anywhere: go run of this module version when
// the binary was built from one (go run ...@version), else semabench.
func commandLine(args []string) string {
	version := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = bi.Main.Version
	}
	return commandLineAt(version, args)
}

// commandLineAt is commandLine for semabench of module version version
// ("" or "(devel)" when unknown).
func commandLineAt(version string, args []string) string {
	words := []string{"semabench"}
	if version != "" && version != "(devel)" {
		words = []string{"go", "run", "github.com/semacat/sem/benchmarks/semabench@" + version}
	}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]()|&;<>^{}~#!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

// measure runs o.rounds rounds into results, each in a child process (see
// round), so that every contender is measured in every round and slow drift
// of the machine hits them all alike.
func measure(o options, results string, stdout io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	f, err := os.Create(results)
	if err != nil {
		return err
	}
	defer f.Close()
	// The go version is file configuration, which benchstat prints and
	// compares; how and when the run was made is a note, a line benchstat
	// ignores, so that runs made on other days still compare.
	impl := ""
	if o.impl != "" {
		impl = " -impl " + o.impl
	}
	fmt.Fprintf(f, "go: %s\n%ssemabench -rounds %d -benchtime %s -long=%t -bench %s%s, started %s\n",
		runtime.Version(), report.NotePrefix, o.rounds, o.benchtime, o.long, o.bench, impl,
		time.Now().UTC().Format(time.RFC3339))
	args := []string{"-round", "-bench", o.bench, "-impl", o.impl, "-benchtime", o.benchtime, fmt.Sprintf("-long=%t", o.long)}
	fmt.Fprintf(stdout, "running %d rounds of every scenario against every contender, %s each\n", o.rounds, o.benchtime)
	p := &progress{w: stdout, start: time.Now(), total: o.rounds * perRound(o)}
	for r := 1; r <= o.rounds; r++ {
		p.round = fmt.Sprintf("round %d/%d", r, o.rounds)
		cmd := exec.Command(self, args...)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return err
		}
		if err := p.follow(io.TeeReader(out, f)); err != nil {
			_ = cmd.Wait()
			return err
		}
		if err := cmd.Wait(); err != nil {
			return fmt.Errorf("%s: %w", p.round, err)
		}
	}
	return f.Close()
}

// progress prints one line per scenario as its results arrive: the
// scenario, and each contender's ns/op (or p99 wait, in the latency pass),
// wrapped onto indented lines within summaryWidth columns.
type progress struct {
	w     io.Writer
	start time.Time
	round string
	// done and total count benchmark results, for the time left; total
	// is 0 when unknown.
	done, total int
	key         string   // pass and scenario being collected
	cells       []string // contender figures collected for it
}

// follow reads go test -bench output until EOF.
func (p *progress) follow(r io.Reader) error {
	br := benchfmt.NewReader(r, "stdout")
	for br.Scan() {
		res, ok := br.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		bench, sc, impl := report.SplitName(string(res.Name.Full()))
		if key := bench + " " + sc; key != p.key {
			p.flush()
			p.key = key
		}
		p.done++
		if ns, ok := report.Value(res, report.NsPerOp); ok {
			p.cells = append(p.cells, impl+" "+report.FormatNs(ns))
		} else if v, ok := report.Value(res, report.P99); ok {
			p.cells = append(p.cells, impl+" p99 "+report.FormatNs(v))
		} else {
			p.cells = append(p.cells, impl)
		}
	}
	p.flush()
	// Drain what the reader did not consume, so that the tee copies it all.
	_, err := io.Copy(io.Discard, r)
	return errors.Join(br.Err(), err)
}

func (p *progress) flush() {
	if p.key == "" {
		return
	}
	line := fmt.Sprintf("%s %6s %s  %s:", p.round, time.Since(p.start).Round(time.Second), p.left(), p.key)
	for i, c := range p.cells {
		if i < len(p.cells)-1 {
			c += ","
		}
		if utf8.RuneCountInString(line)+1+utf8.RuneCountInString(c) > summaryWidth {
			fmt.Fprintln(p.w, line)
			line = "   "
		}
		line += " " + c
	}
	fmt.Fprintln(p.w, line)
	p.key, p.cells = "", nil
}

// left is the time left, "~1m30s left", estimated from the pace so far.
func (p *progress) left() string {
	if p.total == 0 || p.done == 0 {
		return "(time left unknown)"
	}
	elapsed := time.Since(p.start)
	rest := time.Duration(float64(elapsed) * float64(max(p.total-p.done, 0)) / float64(p.done))
	return fmt.Sprintf("~%s left", rest.Round(time.Second))
}

// perRound is how many results one round prints: both passes of every
// scenario a contender can run, when every benchmark runs (-bench .); 0
// when unknown.
func perRound(o options) int {
	if o.bench != "." {
		return 0
	}
	n := 0
	cs, _ := contenders(o)
	for _, sc := range scenarios(o) {
		for _, c := range cs {
			if c.Skip(sc) == "" {
				n += 2 // BenchmarkSemaphore and BenchmarkLatency
			}
		}
	}
	return n
}

// writeReport writes results.md and the charts from results, and prints the
// summary table.
func writeReport(o options, results string, stdout io.Writer) error {
	what := results
	if o.from != "" {
		what = o.from
	}
	r, err := parseResults(results, what)
	if err != nil {
		return err
	}
	for _, w := range r.Warnings {
		fmt.Fprintln(stdout, "semabench: warning:", w)
	}
	old, _ := filepath.Glob(filepath.Join(o.out, "*.svg"))
	for _, name := range old { // charts of an earlier run
		if err := os.Remove(name); err != nil {
			return err
		}
	}
	charts, err := drawCharts(r, o.out)
	if err != nil {
		return err
	}
	md, err := os.Create(filepath.Join(o.out, "results.md"))
	if err != nil {
		return err
	}
	defer md.Close()
	if err := r.Markdown(md, report.Document{Command: o.command, Charts: charts, Skip: skipReason}); err != nil {
		return err
	}
	if err := md.Close(); err != nil {
		return err
	}
	wrote := "results.txt, results.md"
	if o.blocks {
		blocks := report.MarkdownBlocks(r.Blocks(o.command))
		if err := os.WriteFile(filepath.Join(o.out, "blocks.md"), []byte(blocks), 0o644); err != nil {
			return err
		}
		wrote += ", blocks.md"
	}
	fmt.Fprintln(stdout)
	if err := r.Brief(stdout, summaryWidth); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nwrote %s and %d charts (*.svg) into %s;\n"+
		"results.md has every figure, with the ratios to each reference\n", wrote, len(charts), o.out)
	return nil
}

// parseResults reads the results file name, called what in errors, and
// requires results of the race in it.
func parseResults(name, what string) (*report.Run, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := report.Parse(f, what)
	if err != nil {
		return nil, err
	}
	if len(r.Scenarios) == 0 {
		return nil, fmt.Errorf("%s holds no benchmark results of semacat's race (sub-benchmarks named .../impl=NAME): "+
			"give -from a results.txt that semabench wrote, or the go test -bench output of a benchmark "+
			"of yours that calls benchmarks.Race", what)
	}
	return r, nil
}

// summaryWidth is the widest line of the summary printed on the terminal.
const summaryWidth = 100

// drawCharts writes every chart the run has data for.
func drawCharts(r *report.Run, dir string) ([]report.Chart, error) {
	st := chart.Style{Impls: r.Impls, Refs: map[string]bool{}}
	for _, c := range benchmarks.Catalog() {
		st.Refs[c.Name] = c.Reference
	}
	// curve draws cost or wait against goroutines, with the other
	// parameters fixed.
	curve := func(fixed, unit, title, ylabel string) func() (*plot.Plot, error) {
		return func() (*plot.Plot, error) { return chart.Curve(r, st, fixed, unit, title, ylabel) }
	}
	specs := []struct {
		file, caption string
		draw          func() (*plot.Plot, error)
	}{
		{"goroutines-size4.svg", "Cost against goroutines, size 4, short hold (oversubscribed)",
			curve("size=4/work=short", report.NsPerOp, "Oversubscribed: size 4, short hold", "time per Acquire+Release (log)")},
		{"goroutines-size4-yield.svg", "Cost against goroutines, size 4, holder yields (waiters queue for real)",
			curve("size=4/work=yield", report.NsPerOp, "Waiters piling up: size 4, holder yields", "time per Acquire+Release (log)")},
		{"goroutines-size1.svg", "Cost against goroutines, size 1, no work",
			curve("size=1/work=0", report.NsPerOp, "Size 1, no work while holding", "time per Acquire+Release (log)")},
		{"latency-p99-size4.svg", "p99 wait against goroutines, size 4, short hold",
			curve("size=4/work=short", report.P99, "p99 wait of Acquire: size 4, short hold", "p99 wait (log)")},
		{"latency.svg", "Wait percentiles, 16 goroutines, size 1", func() (*plot.Plot, error) {
			return chart.Percentiles(r, "goroutines=16/size=1/work=0")
		}},
		{"starvation.svg", "Starvation probe: worst wait of Acquire(size) among Acquire(1) cyclers", func() (*plot.Plot, error) {
			return chart.Starvation(r, "starvation/goroutines=16/size=4")
		}},
	}
	var out []report.Chart
	for _, s := range specs {
		p, err := s.draw()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.file, err)
		}
		if p == nil {
			continue // no data for it in this run
		}
		f, err := os.Create(filepath.Join(dir, s.file))
		if err != nil {
			return nil, err
		}
		err = errors.Join(chart.WriteSVG(f, p), f.Close())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.file, err)
		}
		out = append(out, report.Chart{File: s.file, Caption: s.caption})
	}
	return out, nil
}

// contenders is the catalog narrowed by -impl (see benchmarks.Select).
func contenders(o options) ([]benchmarks.Contender, error) {
	return benchmarks.Select(benchmarks.Catalog(), o.impl)
}

// skipReason asks the registry why impl sat scenario out.
func skipReason(scenario, impl string) string {
	for _, sc := range slices.Concat(benchmarks.Scenarios, benchmarks.LongScenarios) {
		if sc.Name != scenario {
			continue
		}
		for _, c := range benchmarks.Catalog() {
			if c.Name == impl {
				return c.Skip(sc)
			}
		}
	}
	return ""
}

func copyFile(from, to string) error {
	if a, b := filepath.Clean(from), filepath.Clean(to); a == b {
		return nil
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
