package faults_test

import (
	"path/filepath"
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

// scenario is one fault applied to holders of a size-1 semaphore, repeated
// as the mode says, with what the checker must find.
type scenario struct {
	name   string
	inject func(r *run)
	opts   []option
	expect func(t *testing.T, rep *checker.Report)
}

// The scenarios every strategy must survive, one fault each, and the
// deliberately broken workers the checker must catch.
var holderScenarios = []scenario{
	{"kill-holder", (*run).killHolder, nil, func(t *testing.T, rep *checker.Report) {
		assert.Empty(t, rep.Violations)
		assert.Positive(t, rep.HolderFaults, "the kill missed every holder")
		expectBackByExpiry(t, rep)
	}},
	{"stop-holder", stopMidHold, nil, func(t *testing.T, rep *checker.Report) {
		assert.Empty(t, rep.Violations)
		assert.Positive(t, rep.HolderFaults, "the stop missed every holder")
		assert.Positive(t, rep.DoneSeen, "the stopped holder never saw Done fire after it resumed")
	}},
	{"stop-after-check", stopAfterCheck, []option{slowActs}, expectLateWritesRejected},
	{"partition-holder", func(r *run) { r.partitionHolder(2 * lease) }, []option{holdFor(2 * lease)}, func(t *testing.T, rep *checker.Report) {
		assert.Empty(t, rep.Violations)
		assert.Positive(t, rep.HolderFaults, "the partition missed every holder")
		assert.Positive(t, rep.DoneSeen, "the partitioned holder never saw Done fire")
		expectBackByExpiry(t, rep)
	}},
	{"broken-ignores-fence", stopAfterCheck, []option{slowActs, ignoreFence}, func(t *testing.T, rep *checker.Report) {
		assert.Positive(t, rep.Count(checker.FenceOrder), "the checker missed the unfenced late write")
		assert.Positive(t, rep.Count(checker.LateWriteAccepted), "the checker missed the unfenced late write")
	}},
	{"broken-ignores-done", stopMidHold, []option{ignoreDone}, func(t *testing.T, rep *checker.Report) {
		assert.Positive(t, rep.Count(checker.DoneNotFired), "the checker missed the write made without checking Done")
		assert.Zero(t, rep.Count(checker.LateWriteAccepted), "the fence let the late write through")
	}},
}

// stopMidHold stops a holder while it waits between its writes, for two
// leases: when it resumes, it must learn from its grant that the lease is
// gone before it writes again.
func stopMidHold(r *run) { r.stopHolder(midHold, 2*lease) }

// stopAfterCheck stops a holder between a check that found its grant
// trusted and the write, for two leases: the write is late, and only the
// fence can reject it.
func stopAfterCheck(r *run) { r.stopHolder(afterCheck, 2*lease) }

// expectBackByExpiry: permits came back after every fault, and no sooner
// than the cut-off: by the lease's expiry, not by a release that slipped
// past the fault.
func expectBackByExpiry(t *testing.T, rep *checker.Report) {
	if assert.NotEmpty(t, rep.PermitsBack, "no permits came back after the fault") {
		assert.GreaterOrEqual(t, rep.Percentile(0), checkConfig.Cutoff, "permits came back before the holder's lease could expire")
	}
}

// expectLateWritesRejected: a holder stopped past its lease between its
// check and its write wrote late, and the fence rejected every late write.
func expectLateWritesRejected(t *testing.T, rep *checker.Report) {
	assert.Empty(t, rep.Violations)
	assert.Positive(t, rep.HolderFaults, "the stop missed every holder")
	assert.Positive(t, rep.LateWrites, "the stopped holder made no late write: the scenario did not reach its hazard")
	assert.Equal(t, rep.LateWrites, rep.LateRejected)
}

func (s scenario) run(t *testing.T, strategy string, upstreams []string) {
	r := newRun(t, strategy)
	r.start(currentMode().workers, upstreams, nil, s.opts...)
	for range currentMode().faults {
		time.Sleep(lease / 2) // let the workers contend before the fault
		s.inject(r)
	}
	rep := r.finish()
	s.expect(t, rep)
}

func hostPorts(urls []string) []string {
	var out []string
	for _, u := range urls {
		out = append(out, strings.TrimPrefix(u, "http://"))
	}
	return out
}

// TestEtcd runs the SIGKILL of the leader's process, then the holder
// scenarios side by side, on one 3-member cluster of separate processes.
// The holder scenarios are parallel subtests, so Go holds them back until
// this function returns: kill-leader, a sequential subtest, runs first and
// alone, and no other scenario sees the cluster lose its leader.
func TestEtcd(t *testing.T) {
	t.Parallel()
	c := servers.StartEtcd(t, t.TempDir(), 3)
	for _, s := range holderScenarios {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			s.run(t, "etcd", hostPorts(c.Endpoints))
		})
	}
	t.Run("kill-leader", func(t *testing.T) {
		s := scenario{inject: func(r *run) {
			leader, err := c.Leader(10 * time.Second)
			if !assert.NoError(t, err) {
				return
			}
			c.Kill(leader)
			r.fault(history.FaultServer, "etcd-leader")
			time.Sleep(lease) // the member stays dead for a lease
			c.Restart(leader)
			r.fault(history.FaultRestart, "etcd-leader")
		}, expect: func(t *testing.T, rep *checker.Report) {
			assert.Empty(t, rep.Violations)
			assert.NotEmpty(t, rep.PermitsBack, "nobody was granted after the leader died")
		}}
		s.run(t, "etcd", hostPorts(c.Endpoints))
	})
}

// TestRedis runs the holder scenarios side by side on one redis-server.
func TestRedis(t *testing.T) {
	t.Parallel()
	srv := servers.StartRedis(t, t.TempDir())
	for _, s := range holderScenarios {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			s.run(t, "redis", []string{srv.Addr()})
		})
	}
}

// TestRedisKillRestart kills redis-server with SIGKILL while a worker holds
// a long grant, and restarts it at once from its RDB snapshot: a grant made
// since the last snapshot is lost, which redissem documents as a case of
// over-admission. The fence must still hold, and no waiter may be stranded.
func TestRedisKillRestart(t *testing.T) {
	t.Parallel()
	srv := servers.StartRedis(t, filepath.Join(t.TempDir(), "redis"))
	s := scenario{inject: func(r *run) {
		r.waitHolder()
		srv.Kill()
		r.fault(history.FaultServer, "redis")
		srv.Restart()
		r.fault(history.FaultRestart, "redis")
	}, opts: []option{holdFor(lease)}, expect: expectOnlyDocumentedOverAdmission}
	s.run(t, "redis", []string{srv.Addr()})
}

// TestSentinelFailover kills the Redis primary with SIGKILL while a worker
// holds a long grant; the Sentinel promotes the replica and the workers
// follow it. Replication is asynchronous, so a grant the replica had not
// received is lost, which redissem documents. One failover per run, in
// either mode: the killed primary is not brought back as a replica.
func TestSentinelFailover(t *testing.T) {
	t.Parallel()
	sn := servers.StartSentinel(t, t.TempDir(), 500*time.Millisecond)
	r := newRun(t, "sentinel")
	r.start(currentMode().workers, nil, []string{sn.Addr()}, holdFor(lease))
	time.Sleep(lease / 2)
	old, err := sn.Master()
	assert.NoError(t, err)
	r.waitHolder()
	sn.Primary.Kill()
	r.fault(history.FaultServer, "redis-primary")
	now, err := sn.WaitFailover(old, 20*time.Second)
	assert.NoError(t, err)
	r.fault(history.FaultRestart, "redis-primary "+now)
	rep := r.finish()
	expectOnlyDocumentedOverAdmission(t, rep)
}

// expectOnlyDocumentedOverAdmission: after Redis lost writes, more than the
// size may hold (reported, not failed), but the fence keeps order, and
// every waiter ends.
func expectOnlyDocumentedOverAdmission(t *testing.T, rep *checker.Report) {
	for _, v := range rep.Violations {
		if v.Kind != checker.OverAdmission {
			t.Errorf("unexpected violation: %v", v)
		}
	}
	if n := rep.Count(checker.OverAdmission); n > 0 {
		t.Logf("over-admission after Redis lost writes (documented by redissem): %d episodes", n)
	}
	assert.NotEmpty(t, rep.PermitsBack, "nobody was granted after the server fault")
}

// withReplicas makes every grant and refresh wait for one replica.
func withReplicas(s *worker.Spec) { s.Replicas = 1 }

// TestRedisCluster fails over a master of a Redis Cluster of three masters,
// each with a replica, in redis-server's own cluster mode: SIGKILL of the
// master that holds the semaphore's keys while a worker holds, one of its
// replicas takes over, and the killed master comes back as its replica. Without WithReplicas a grant the replica had not
// received is lost, which redissem documents; with it, every grant and
// refresh a holder relies on is on the replica, so nothing may go wrong.
// The broken variant holds through the failover without heeding Done: the
// checker must catch it acting on a grant the new master let go.
func TestRedisCluster(t *testing.T) {
	t.Parallel()
	variants := []struct {
		name   string
		opts   []option
		expect func(t *testing.T, rep *checker.Report)
	}{
		{"failover", nil, expectOnlyDocumentedOverAdmission},
		{"failover-replicas", []option{withReplicas}, func(t *testing.T, rep *checker.Report) {
			assert.Empty(t, rep.Violations)
			assert.NotEmpty(t, rep.PermitsBack, "nobody was granted after the failover")
		}},
		{"broken-ignores-done", []option{withReplicas, ignoreDone, holdFor(3 * lease)}, func(t *testing.T, rep *checker.Report) {
			assert.Positive(t, rep.Count(checker.DoneNotFired), "the checker missed the write made on a grant lost in the failover")
		}},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			c := servers.StartCluster(t, t.TempDir(), 3, 1)
			r := newRun(t, "redis")
			// The workers outlast the failovers: each takes the node
			// timeout and an election, and a lease passes before the
			// permits come back.
			d := currentMode().duration + time.Duration(currentMode().faults)*4*lease
			r.start(currentMode().workers, nil, c.Addrs(), append([]option{holdFor(lease), runFor(d)}, v.opts...)...)
			key := redissem.DefaultPrefix + "{" + r.name + "}:meta"
			for range currentMode().faults {
				time.Sleep(lease / 2)
				r.waitHolder()
				old, err := c.MasterOf(key)
				require.NoError(t, err)
				old.Kill()
				r.fault(history.FaultServer, "redis-master "+old.Addr())
				now, err := c.WaitFailover(old, key, 20*time.Second)
				require.NoError(t, err)
				old.Restart() // it rejoins as the new master's replica
				r.fault(history.FaultRestart, "redis-master "+now+", the old one its replica")
			}
			v.expect(t, r.finish())
		})
	}
}

// stallReadTimeout is the workers' read timeout in the stall scenarios:
// shorter than a stall, so that go-redis retries what a stall holds up.
const stallReadTimeout = 150 * time.Millisecond

// TestRedisStall stalls redis-server (DEBUG SLEEP) again and again for
// longer than the clients' read timeout and shorter than the Cutoff: every
// command a stall holds up is retried on another connection while the
// first may still run. Nothing may go wrong, and no release may report its
// lease lost. The broken variant stalls past the lease, so that grants do
// end, with holders that act without checking Done: the checker must catch
// them. It stalls only once a worker holds a grant, so that every stall
// ends one, however late a loaded machine lets the workers get theirs.
func TestRedisStall(t *testing.T) {
	t.Parallel()
	variants := []struct {
		name     string
		stall    time.Duration
		onHolder bool // stall only once a worker holds a grant
		opts     []option
		expect   func(t *testing.T, rep *checker.Report)
	}{
		{"stall-retries", 250 * time.Millisecond, false, nil, func(t *testing.T, rep *checker.Report) {
			assert.Empty(t, rep.Violations)
		}},
		{"broken-ignores-done", lease + lease/2, true, []option{ignoreDone, holdFor(3 * lease)}, func(t *testing.T, rep *checker.Report) {
			assert.Positive(t, rep.Count(checker.DoneNotFired), "the checker missed the write made on a grant a stall ended")
		}},
	}
	srv := servers.StartRedis(t, t.TempDir(), "--enable-debug-command", "local")
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			play := func() *checker.Report {
				r := newRun(t, "redis")
				r.start(currentMode().workers, nil, []string{srv.Addr()},
					append([]option{func(s *worker.Spec) { s.ReadTimeout = stallReadTimeout }}, v.opts...)...)
				stalls := max(currentMode().faults, int(r.duration/(v.stall+holdTime)))
				for range stalls {
					time.Sleep(holdTime)
					if v.onHolder {
						r.waitHolder()
					}
					r.fault(history.FaultStall, "redis")
					require.NoError(t, servers.Stall(srv.Addr(), v.stall))
					r.fault(history.FaultStallEnd, "redis")
				}
				return r.finish()
			}
			v.expect(t, play())
		})
	}
}
