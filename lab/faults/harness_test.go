package faults_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem/lab/devserver"
	"github.com/semacat/sem/lab/faults/checker"
	"github.com/semacat/sem/lab/faults/fence"
	"github.com/semacat/sem/lab/faults/history"
	"github.com/semacat/sem/lab/faults/proxy"
	"github.com/semacat/sem/lab/faults/servers"
	"github.com/semacat/sem/lab/faults/worker"
)

// TestMain is also the entry point of the processes the scenarios start:
// an etcd member or a worker, told apart by their environment.
func TestMain(m *testing.M) {
	switch {
	case os.Getenv(servers.MemberEnv) != "":
		os.Exit(servers.MemberMain())
	case os.Getenv(worker.SpecEnv) != "":
		os.Exit(worker.Main())
	}
	runScenariosSideBySide()
	goleak.VerifyTestMain(tableMain{m}, goleak.IgnoreTopFunction(proxy.LeakedGoroutine))
}

// scenariosAtOnce is how many scenarios run at a time unless -test.parallel
// says otherwise. Go's default is GOMAXPROCS, sized for tests that compute;
// a scenario mostly waits (for holds, leases, stops and restarts) while its
// workers make a few grants a second, so even on 2 cores four at once keep
// make test short and leave every process idle most of the time. TestEtcd
// keeps its leader kill apart from the rest (see there); every other
// scenario has its own semaphore, fence key and workers.
const scenariosAtOnce = 4

// runScenariosSideBySide raises -test.parallel to scenariosAtOnce when the
// command line did not set it.
func runScenariosSideBySide() {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(max(scenariosAtOnce, runtime.GOMAXPROCS(0))))
	}
}

// tableMain prints the summary table after every scenario ran.
type tableMain struct{ m *testing.M }

func (tm tableMain) Run() int {
	code := tm.m.Run()
	if len(rows) > 0 {
		slices.Sort(rows) // scenarios end in any order
		fmt.Println("\nscenario                                  ops  faults  violations  permits-back p50  p99")
		for _, r := range rows {
			fmt.Println(r)
		}
	}
	return code
}

var (
	rowsMu sync.Mutex
	rows   []string
)

// mode is the size of every scenario: bounded by default, longer with
// SEMACAT_FAULTS=long.
type mode struct {
	workers  int
	duration time.Duration // each worker's run
	faults   int           // faults injected per scenario
}

func currentMode() mode {
	if os.Getenv("SEMACAT_FAULTS") == "long" {
		return mode{workers: 5, duration: 25 * time.Second, faults: 4}
	}
	return mode{workers: 3, duration: 5 * time.Second, faults: 1}
}

// lease is the lease of every grant: etcd's minimum with its default
// election timeout, so that faults reach expiry quickly.
const lease = 2 * time.Second

// checkConfig is the checker's view of the runs: a holder cut off counts
// as holding for a third of the lease, and permits must be back within two
// leases of a holder's crash. A third, not the whole lease: the last
// refresh before the fault may have gone out long before it (redissem
// refreshes every third of the lease; etcd's client sends a keep-alive a
// third of the TTL after the last reply, checked every half second), so a
// server may rightly expire a cut-off holder well before the fault time
// plus the lease. Only Done can tell a holder when its own lease ends. A
// grant's answer may take up to an eighth of the lease to reach its
// worker, a margin no loopback round trip nears even on a loaded machine.
var checkConfig = checker.Config{Size: 1, Lease: lease, Cutoff: lease / 3, BackBound: lease, GrantLag: lease / 8}

// run is one scenario: its workers, the fenced store and the nemesis's log.
type run struct {
	t        *testing.T
	dir      string
	strategy string
	name     string // the semaphore's
	store    *fence.Store
	nemesis  *history.Writer
	procs    []*proc
	files    []string
	duration time.Duration // the longest run of its workers
	// relayed makes start put a Relay, not a toxiproxy proxy, between each
	// worker and each server.
	relayed    bool
	stopProbes func() // set by probeRedis
}

// proc is one worker process.
type proc struct {
	name    string
	cmd     *exec.Cmd
	history string
	hold    time.Duration // how long it holds each grant
	proxies []*proxy.Proxy
	relays  []*proxy.Relay
	exited  chan struct{}
}

func newRun(t *testing.T, strategy string) *run {
	dir := t.TempDir()
	r := &run{t: t, dir: dir, strategy: strategy,
		name: strings.NewReplacer("/", "-").Replace(t.Name()) + fmt.Sprint(time.Now().UnixNano())}
	var err error
	storeLog := filepath.Join(dir, "store.jsonl")
	r.store, err = fence.Start(storeLog)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.store.Close() })
	nemLog := filepath.Join(dir, "nemesis.jsonl")
	r.nemesis, err = history.Create(nemLog, "nemesis")
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.nemesis.Close() })
	r.files = []string{storeLog, nemLog}
	return r
}

// holdTime is how long a worker holds each grant unless told otherwise.
const holdTime = 200 * time.Millisecond

// options of a worker beyond the defaults.
type option func(*worker.Spec)

func ignoreFence(s *worker.Spec) { s.IgnoreFence = true }

func ignoreDone(s *worker.Spec) { s.IgnoreDone = true }

// actDelay is the time a worker given slowActs spends between checking its
// grant and the write that check guards.
const actDelay = holdTime

func slowActs(s *worker.Spec) { s.ActDelay = actDelay }

// runFor makes every worker run for d instead of the mode's duration.
func runFor(d time.Duration) option { return func(s *worker.Spec) { s.Duration = d } }

// holdFor makes every grant last d.
func holdFor(d time.Duration) option { return func(s *worker.Spec) { s.Hold = d } }

// start starts n workers. Each reaches its servers through proxies of its
// own when upstreams are given (one per server), or at endpoints directly.
func (r *run) start(n int, upstreams, endpoints []string, opts ...option) {
	for i := range n {
		p := &proc{name: fmt.Sprintf("w%d", i), exited: make(chan struct{})}
		p.history = filepath.Join(r.dir, p.name+".jsonl")
		eps := endpoints
		for _, up := range upstreams {
			if r.relayed {
				rl, err := proxy.StartRelay(up)
				require.NoError(r.t, err)
				r.t.Cleanup(rl.Close)
				p.relays = append(p.relays, rl)
				eps = append(eps, rl.Addr())
				continue
			}
			px, err := proxy.Start(up)
			require.NoError(r.t, err)
			r.t.Cleanup(px.Close)
			p.proxies = append(p.proxies, px)
			if r.strategy == "etcd" {
				eps = append(eps, px.URL())
			} else {
				eps = append(eps, px.Addr())
			}
		}
		spec := worker.Spec{
			Config: worker.Config{Name: p.name, Weight: 1, Hold: holdTime,
				Duration: currentMode().duration, AcquireTimeout: 3 * lease, ReleaseTimeout: lease,
				Store: r.store.URL(), Key: r.name},
			Strategy: r.strategy, Endpoints: eps, MasterName: "", Semaphore: r.name, Size: 1,
			Lease: lease, History: p.history,
		}
		if r.strategy == "sentinel" {
			spec.Strategy, spec.MasterName = "redis", servers.MasterName
		}
		for _, o := range opts {
			o(&spec)
		}
		r.duration = max(r.duration, spec.Duration)
		p.hold = spec.Hold
		exe, err := os.Executable()
		require.NoError(r.t, err)
		p.cmd = exec.Command(exe, "-test.run=^$")
		p.cmd.Env = append(os.Environ(), spec.Env())
		p.cmd.Stderr = os.Stderr
		require.NoError(r.t, devserver.Start(p.cmd))
		go func() { _ = p.cmd.Wait(); close(p.exited) }()
		r.t.Cleanup(func() { _ = p.cmd.Process.Kill(); <-p.exited })
		r.procs = append(r.procs, p)
		r.files = append(r.files, p.history)
	}
}

// fault records a fault in the nemesis's log.
func (r *run) fault(detail, target string) {
	require.NoError(r.t, r.nemesis.Log(history.Event{Kind: history.Fault, Detail: detail, Target: target}))
	r.t.Logf("fault: %s %s", detail, target)
}

// holding reports whether p's history ends inside a grant.
func holding(p *proc) bool {
	events, err := history.Read(p.history)
	if err != nil {
		return false
	}
	in := false
	for _, e := range events {
		switch e.Kind {
		case history.Granted:
			in = true
		case history.ReleaseStart, history.AcquireStart, history.Exit:
			in = false
		}
	}
	return in
}

// midHold reports whether p, frozen, is in the quiet middle of a grant:
// its first write logged less than a quarter of its hold ago, so that no
// other check, write or release of that grant can be in flight. The
// quarter is of p's own hold: with holds of seconds, a window of the
// default hold's quarter came once in a run and a loaded machine missed it.
func midHold(p *proc) bool {
	events := lastEvents(p)
	i := len(events) - 1
	if i < 1 || events[i].Kind != history.WriteAccepted || time.Since(events[i].Wall) >= p.hold/4 {
		return false
	}
	if events[i-1].Kind == history.DoneOpen && i >= 2 {
		i-- // a careful worker checked before it wrote
	}
	return events[i-1].Kind == history.Granted
}

// afterCheck reports whether p, frozen, is between a check of its grant
// that found it trusted and the write that check guards: it logged the
// check less than a quarter of actDelay ago.
func afterCheck(p *proc) bool {
	events := lastEvents(p)
	n := len(events)
	return n > 0 && events[n-1].Kind == history.DoneOpen && time.Since(events[n-1].Wall) < actDelay/4
}

func lastEvents(p *proc) []history.Event {
	events, err := history.Read(p.history)
	if err != nil {
		return nil
	}
	return events
}

// waitHolder returns a live worker that holds the semaphore now.
func (r *run) waitHolder() *proc {
	deadline := time.Now().Add(3 * lease)
	for time.Now().Before(deadline) {
		for _, p := range r.procs {
			select {
			case <-p.exited:
				continue
			default:
			}
			if holding(p) {
				return p
			}
		}
		time.Sleep(5 * time.Millisecond) // polling other processes' files
	}
	r.t.Fatalf("no worker held the semaphore within %v", 3*lease)
	return nil
}

// signal sends sig to p and records the fault.
func (r *run) signal(p *proc, sig syscall.Signal, detail string) {
	require.NoError(r.t, p.cmd.Process.Signal(sig))
	r.fault(detail, p.name)
}

// frozenHolder returns a worker that holds the semaphore, stopped with
// SIGSTOP where at says, for the instant the harness needs to put a fault
// there: a worker checked while running could write or release before the
// fault lands. The freeze is not recorded: it lasts far less than any
// lease.
func (r *run) frozenHolder(at func(*proc) bool) *proc {
	deadline := time.Now().Add(3 * lease)
	for time.Now().Before(deadline) {
		p := r.waitHolder()
		require.NoError(r.t, p.cmd.Process.Signal(syscall.SIGSTOP))
		if at(p) {
			return p
		}
		r.thaw(p)
	}
	r.t.Fatalf("no worker was caught in the middle of a grant within %v", 3*lease)
	return nil
}

func (r *run) thaw(p *proc) { require.NoError(r.t, p.cmd.Process.Signal(syscall.SIGCONT)) }

// killHolder kills a worker while it holds the semaphore.
func (r *run) killHolder() {
	p := r.frozenHolder(midHold)
	r.signal(p, syscall.SIGKILL, history.FaultKill)
	<-p.exited
}

// stopHolder stops a worker while it holds the semaphore, where at says,
// for d, then lets it go on.
func (r *run) stopHolder(at func(*proc) bool, d time.Duration) {
	p := r.frozenHolder(at)
	r.fault(history.FaultStop, p.name)
	time.Sleep(d) // the fault's length
	r.signal(p, syscall.SIGCONT, history.FaultCont)
}

// partitionHolder blackholes every connection of a holder to its servers
// for d, then heals.
func (r *run) partitionHolder(d time.Duration) {
	p := r.frozenHolder(midHold)
	for _, px := range p.proxies {
		require.NoError(r.t, px.Blackhole())
	}
	r.fault(history.FaultPartition, p.name)
	r.thaw(p)
	time.Sleep(d) // the fault's length
	for _, px := range p.proxies {
		px.Heal()
	}
	r.fault(history.FaultHeal, p.name)
}

// finish waits for the workers to end their runs (killing any that hangs,
// which the checker reports as vanished), checks the histories, logs the
// violations and the summary row, and returns the report.
func (r *run) finish() *checker.Report {
	deadline := time.After(r.duration + 6*lease)
	for _, p := range r.procs {
		select {
		case <-p.exited:
		case <-deadline:
			r.t.Logf("%s did not finish in time; killing it", p.name)
			_ = p.cmd.Process.Signal(syscall.SIGCONT)
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	}
	if r.stopProbes != nil {
		r.stopProbes()
	}
	events, err := checker.Load(r.files...)
	require.NoError(r.t, err)

	rep := checker.Check(checkConfig, events)
	for _, v := range rep.Violations {
		r.t.Logf("violation: %v", v)
	}
	for _, n := range rep.Notes {
		r.t.Logf("note: %s", n)
	}
	row := fmt.Sprintf("%-40s %5d %7d %11d %16v %5v", r.t.Name(), rep.Grants, rep.Faults, len(rep.Violations),
		rep.Percentile(50).Round(time.Millisecond), rep.Percentile(99).Round(time.Millisecond))
	if rep.Overtaken > 0 {
		row += fmt.Sprintf("  (%d requests reached the server after their withdrawal)", rep.Overtaken)
	}
	r.t.Log(row)
	rowsMu.Lock()
	rows = append(rows, row)
	rowsMu.Unlock()
	return rep
}
