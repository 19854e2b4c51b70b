package faults_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/lab/faults/checker"
	"github.com/semacat/sem/lab/faults/history"
	"github.com/semacat/sem/lab/faults/servers"
	"github.com/semacat/sem/lab/faults/worker"
	"github.com/semacat/sem/redissem"
)

// A server fault that leaves the workers alone: what the nemesis does to
// the server while the workers run, and what the checker must find.
type serverFault struct {
	name   string
	inject func(r *run) // one fault, the server back to normal at its end
	opts   []option
	expect func(t *testing.T, rep *checker.Report)
	// hazard, if set, is a text some worker's error must contain: the
	// fault reached the workers.
	hazard string
}

// expectNoViolation: the strategy promises this scenario.
func expectNoViolation(t *testing.T, rep *checker.Report) {
	assert.Empty(t, rep.Violations)
	assert.NotEmpty(t, rep.PermitsBack, "nobody was granted after the fault")
}

// brokenUnfenced is the broken variant of a server fault: on top of it, a
// holder is stopped past its lease between its check and its write, and
// the workers skip the fence. Whatever the server fault did, the checker
// must report the stale write that got in.
func brokenUnfenced(fault func(r *run)) serverFault {
	return serverFault{"broken-ignores-fence", func(r *run) {
		fault(r)
		stopAfterCheck(r)
	}, []option{slowActs, ignoreFence}, func(t *testing.T, rep *checker.Report) {
		assert.Positive(t, rep.Count(checker.LateWriteAccepted), "the checker missed the unfenced late write")
	}, ""}
}

func (f serverFault) run(t *testing.T, addr string) {
	r := newRun(t, "redis")
	r.start(currentMode().workers, []string{addr}, nil, f.opts...)
	for range currentMode().faults {
		time.Sleep(lease / 2) // let the workers contend before the fault
		f.inject(r)
	}
	f.expect(t, r.finish())
	if f.hazard != "" {
		assert.Positive(t, workerErrors(t, r, f.hazard), "no worker met %q: the fault did not reach them", f.hazard)
	}
}

// workerErrors counts the events of r's workers whose error contains text.
func workerErrors(t *testing.T, r *run, text string) int {
	n := 0
	for _, p := range r.procs {
		events, err := history.Read(p.history)
		require.NoError(t, err)
		for _, e := range events {
			if strings.Contains(e.Err, text) {
				n++
			}
		}
	}
	return n
}

// clockStep is how far the server's clock steps forward: many leases.
const clockStep = 30 * time.Second

// TestRedisClockStep steps the wall clock of redis-server (under
// libfaketime) forward by many leases while a worker holds, as NTP or an
// operator may; the monotonic clock does not move. Leases live in the
// server's time, so a strategy that reaps by it would reap holders that
// refresh on time and admit others while they hold: over-admission. The
// step stays (clocks are not stepped back) for the rest of the run.
func TestRedisClockStep(t *testing.T) {
	t.Parallel()
	srv := servers.StartClockRedis(t, t.TempDir())
	step := func(r *run) {
		r.waitHolder()
		require.NoError(r.t, srv.Step(clockStep))
		r.fault(history.FaultClock, "redis +"+clockStep.String())
	}
	for _, f := range []serverFault{
		{"clock-step", step, nil, expectNoViolation, ""},
		brokenUnfenced(step),
	} {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			f.run(t, srv.Addr())
		})
	}
}

// TestRedisFull makes redis-server refuse every write that needs memory,
// as a server at maxmemory under noeviction (the policy redissem's docs
// recommend) does, for two leases, then gives it memory again. Grants,
// refreshes and releases are writes: the promise is that nothing unsafe
// happens (no over-admission, no false lease lost) and that permits come
// back once the server has memory again.
func TestRedisFull(t *testing.T) {
	t.Parallel()
	// full makes the server at addr full for d.
	full := func(addr string, d time.Duration) func(r *run) {
		return func(r *run) {
			r.waitHolder()
			require.NoError(r.t, setMaxmemory(addr, 1))
			r.fault(history.FaultFull, "redis")
			time.Sleep(d)
			require.NoError(r.t, setMaxmemory(addr, 0))
			r.fault(history.FaultFreed, "redis")
		}
	}
	for _, v := range []struct {
		name string
		make func(addr string) serverFault
	}{
		{"full", func(addr string) serverFault {
			return serverFault{"full", full(addr, 2*lease), nil, expectNoViolation, "OOM"}
		}},
		{"broken-ignores-fence", func(addr string) serverFault { return brokenUnfenced(full(addr, lease/2)) }},
	} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			srv := servers.StartRedis(t, t.TempDir(), "--maxmemory-policy", "noeviction")
			v.make(srv.Addr()).run(t, srv.Addr())
		})
	}
}

// setMaxmemory sets the server's maxmemory in bytes; 0 is no limit.
func setMaxmemory(addr string, bytes int64) error {
	_, err := servers.Command(addr, "CONFIG", "SET", "maxmemory", strconv.FormatInt(bytes, 10))
	return err
}

// TestRedisSlotMigration marks the Cluster slot of the semaphore's keys as
// migrating to another master for two leases, with no key moved yet, as a
// resharding does before it moves them, then cancels the migration. The
// semaphore's keys that exist are still served by the source; those that
// do not (the scripts name some that usually do not exist) are redirected.
// The promise: nothing unsafe, and permits back once the slot is stable.
func TestRedisSlotMigration(t *testing.T) {
	t.Parallel()
	migrate := func(c *servers.Cluster, d time.Duration) func(r *run) {
		return func(r *run) {
			r.waitHolder()
			m, err := c.StartMigration(redissem.DefaultPrefix + "{" + r.name + "}:meta")
			require.NoError(r.t, err)
			require.NoError(r.t, m.Marked())
			r.fault(history.FaultMigrating, "redis-slot")
			time.Sleep(d)
			require.NoError(r.t, m.Cancel())
			r.fault(history.FaultStable, "redis-slot")
		}
	}
	for _, v := range []struct {
		name string
		make func(c *servers.Cluster) serverFault
	}{
		{"migrating", func(c *servers.Cluster) serverFault {
			return serverFault{"migrating", migrate(c, 2*lease), nil, expectNoViolation, ""}
		}},
		{"broken-ignores-fence", func(c *servers.Cluster) serverFault { return brokenUnfenced(migrate(c, lease/2)) }},
	} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			c := servers.StartCluster(t, t.TempDir(), 3, 0)
			f := v.make(c)
			r := newRun(t, "redis")
			r.start(currentMode().workers, nil, c.Addrs(), f.opts...)
			for range currentMode().faults {
				time.Sleep(lease / 2)
				f.inject(r)
			}
			f.expect(t, r.finish())
			t.Logf("worker errors that say TRYAGAIN: %d", workerErrors(t, r, "TRYAGAIN"))
		})
	}
}

// TestRedisSessionStalledMaster runs workers whose handles are on a
// redissem Session that also holds a grant of another semaphore, whose
// keys live on another master of the Cluster; that master is stalled
// (SIGSTOP) for three leases, then resumed. In Redis each grant is a lease
// of its own: the stalled master must cost nothing to the grants on the
// healthy one, so no release may report its lease lost (a false loss, as
// nothing stalled the workers' own master). The broken variant is the
// unfenced late write on top.
func TestRedisSessionStalledMaster(t *testing.T) {
	t.Parallel()
	stall := func(c *servers.Cluster, decoyKey string, d time.Duration) func(r *run) {
		return func(r *run) {
			r.waitHolder()
			m, err := c.MasterOf(decoyKey)
			require.NoError(r.t, err)
			require.NoError(r.t, m.Stop())
			r.fault(history.FaultStopServer, "redis-master "+m.Addr()+" (the decoy's)")
			time.Sleep(d)
			require.NoError(r.t, m.Cont())
			r.fault(history.FaultContServer, "redis-master "+m.Addr())
		}
	}
	for _, v := range []struct {
		name   string
		stall  time.Duration
		opts   []option
		expect func(t *testing.T, rep *checker.Report)
	}{
		{"session-stalled-master", 3 * lease, nil, expectNoViolation},
		{"broken-ignores-fence", lease / 2, []option{slowActs, ignoreFence}, nil},
	} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			c := servers.StartCluster(t, t.TempDir(), 3, 0)
			// No replica takes over the stalled master, and the others go on
			// serving their slots while the Cluster deems it failed.
			for _, n := range c.Nodes {
				_, err := servers.Command(n.Addr(), "CONFIG", "SET", "cluster-require-full-coverage", "no")
				require.NoError(t, err)
			}
			r := newRun(t, "redis")
			semKey := redissem.DefaultPrefix + "{" + r.name + "}:meta"
			decoy := decoyOn(t, c, semKey)
			f := serverFault{v.name, stall(c, redissem.DefaultPrefix+"{"+decoy+"}:meta", v.stall), v.opts, v.expect, ""}
			if v.expect == nil {
				f = brokenUnfenced(f.inject)
			}
			n := currentMode().workers
			r.start(n, nil, c.Addrs(), append([]option{func(s *worker.Spec) {
				s.Decoy, s.DecoySize = decoy, int64(n)
			}}, f.opts...)...)
			for range currentMode().faults {
				time.Sleep(lease / 2)
				f.inject(r)
			}
			f.expect(t, r.finish())
		})
	}
}

// decoyOn returns a semaphore name whose keys live on another master than
// key's.
func decoyOn(t *testing.T, c *servers.Cluster, key string) string {
	t.Helper()
	home, err := c.MasterOf(key)
	require.NoError(t, err)
	for i := range 100 {
		name := "decoy-" + strconv.Itoa(i)
		m, err := c.MasterOf(redissem.DefaultPrefix + "{" + name + "}:meta")
		require.NoError(t, err)
		if m != home {
			return name
		}
	}
	t.Fatal("no decoy name on another master in 100 tries")
	return ""
}
