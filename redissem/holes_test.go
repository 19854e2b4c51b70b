package redissem_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/redissem"
)

// libfaketime is the library that shifts the clock of redis-server (Debian:
// apt-get install -y libfaketime).
const libfaketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"

// startSteppingRedis starts redis-server with libfaketime preloaded, its
// wall clock shifted by the offset in a file that step rewrites: the
// server's TIME steps at once, as after an NTP step or an operator's date.
// redis-server is the process the test starts (no faketime wrapper that
// forks), so Kill ends it. glibc's malloc goes in front of jemalloc, whose
// start otherwise deadlocks with libfaketime's.
func startSteppingRedis(t *testing.T, extra ...string) (srv *redisServer, step func(time.Duration)) {
	t.Helper()
	if _, err := os.Stat(libfaketime); err != nil {
		t.Fatalf("the clock-step tests need %s; run `make testdeps` or apt-get install -y libfaketime", libfaketime)
	}
	dir := t.TempDir()
	offset := filepath.Join(dir, "faketime")
	require.NoError(t, os.WriteFile(offset, []byte("+0\n"), 0o600))
	srv, err := launchRedis(redisServer{dir: dir, args: append([]string{"--appendonly", "no"}, extra...),
		env: []string{"LD_PRELOAD=libc_malloc_debug.so.0 " + libfaketime, "FAKETIME_TIMESTAMP_FILE=" + offset,
			"FAKETIME_NO_CACHE=1", "FAKETIME_DONT_FAKE_MONOTONIC=1"}})
	require.NoError(t, err)
	t.Cleanup(srv.Kill)
	var total time.Duration
	return srv, func(d time.Duration) {
		total += d
		require.NoError(t, os.WriteFile(offset, []byte(fmtOffset(total)), 0o600))
	}
}

// fmtOffset writes d as libfaketime's relative offset in seconds: "+30".
func fmtOffset(d time.Duration) string {
	return fmt.Sprintf("%+d\n", int64(d/time.Second))
}

// R1: the server's clock steps forward by much more than a lease. The next
// script must not reap a holder that refreshes on time and admit another:
// the scripts count at most a third of a lease between two of them.
func TestServerClockStepForwardKeepsLeases(t *testing.T) {
	t.Parallel()
	srv, step := startSteppingRedis(t)
	const lease = 3 * time.Second
	ctx := context.Background()
	rdb := newClient(t, srv.Addr())
	holder := newSem(t, rdb, 1, redissem.WithLease(lease))
	other, err := redissem.New(context.Background(), newClient(t, srv.Addr()), holder.Name(), 1, redissem.WithLease(lease))
	require.NoError(t, err)
	defer other.Close()
	p, err := holder.AcquirePermit(ctx, 1)
	require.NoError(t, err)

	before := rdb.Time(ctx).Val()
	step(30 * time.Second)
	require.Greater(t, rdb.Time(ctx).Val().Sub(before), 25*time.Second, "the server's clock did not step")
	assert.False(t, other.TryAcquire(1), "another was admitted beside a holder that refreshes on time")
	require.NoError(t, p.Err())

	// The holder keeps its grant over more leases, its refreshes counted
	// in the semaphore's time.
	deadline := time.Now().Add(2 * lease)
	for time.Now().Before(deadline) {
		require.False(t, other.TryAcquire(1), "another was admitted after the step")
		time.Sleep(lease / 6) // real time must pass on the server
	}
	require.NoError(t, p.Err())
	require.NoError(t, p.Release(ctx))
	assert.True(t, other.TryAcquire(1), "the released permit is free")
	other.Release(1)
}

// R1, the other way: a step back does not stretch a dead holder's lease
// by the step.
func TestServerClockStepBackReapsOnTime(t *testing.T) {
	t.Parallel()
	srv, step := startSteppingRedis(t)
	const lease = time.Second
	ctx := context.Background()
	dead := newSem(t, newClient(t, srv.Addr()), 1, redissem.WithLease(lease),
		redissem.WithRefreshPaused(func() bool { return true }))
	other, err := redissem.New(context.Background(), newClient(t, srv.Addr()), dead.Name(), 1, redissem.WithLease(lease))
	require.NoError(t, err)
	defer other.Close()
	require.NoError(t, dead.Acquire(ctx, 1))
	step(-60 * time.Second)
	start := time.Now()
	ctx10, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	require.NoError(t, other.Acquire(ctx10, 1), "the dead holder's permit never came back")
	assert.Less(t, time.Since(start), 5*time.Second, "the step back stretched the dead holder's lease")
	other.Release(1)
}

// R9: after the keys are lost, the semaphore comes back with the size
// Redis last recorded (when meta survived) or that the noticing handle
// last saw, a Resize included; not with a handle's creation size.
func TestLostStateKeepsResize(t *testing.T) {
	t.Parallel()
	const lease = 300 * time.Millisecond
	for _, tc := range []struct {
		name string
		keys []string // deleted
		// stale: the handle that notices did not see the Resize.
		stale bool
	}{
		{"meta kept, stale handle notices", []string{"holders", "recs"}, true},
		{"all keys lost, resizing handle notices", []string{"meta", "holders", "recs"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			rdb := newClient(t, shared.Addr())
			a := newSem(t, rdb, 5, redissem.WithLease(lease))
			b := otherHandle(t, a, redissem.WithLease(lease))
			a.Resize(2)
			require.NoError(t, a.Acquire(ctx, 1))
			for _, k := range tc.keys {
				require.NoError(t, rdb.Del(ctx, "redissem:{"+a.Name()+"}:"+k).Err())
			}
			notices := a
			if tc.stale {
				notices = b
			}
			require.ErrorIs(t, notices.Acquire(ctx, 1), redissem.ErrStateLost)
			waitFor(t, "grants to resume", func() bool { return notices.TryAcquire(1) })
			granted := int64(1)
			for notices.TryAcquire(1) {
				granted++
			}
			assert.Equal(t, int64(2), granted, "permits granted after the loss, on a semaphore resized to 2")
		})
	}
}

// R2, R3: Redis full under noeviction. Release and the refreshes still go
// through (their first write cannot grow memory, after which Redis lets a
// script finish); a new request is refused with an error wrapping
// ErrUnavailable.
//
// Not parallel: its 600ms lease must be refreshed through a full Redis on
// time, and under the parallel tests' load a refresh came too late (seen
// twice on a loaded machine); a serial test runs alone.
func TestFullRedisReleasesAndRefreshes(t *testing.T) {
	srv, err := startRedis(t.TempDir(), false, "--maxmemory-policy", "noeviction")
	require.NoError(t, err)
	t.Cleanup(srv.Kill)
	// A lease long enough that a refresh delayed by a loaded machine
	// still lands in it: with 600ms the release check, running four
	// users' tests beside make test's jobs, saw the grant lost with
	// Redis answering, a refresh having missed the lease by scheduling
	// alone. Refreshes refused by a full Redis still lose it well
	// within the three leases the test waits.
	const lease = 1500 * time.Millisecond
	ctx := context.Background()
	rdb := newClient(t, srv.Addr())
	s := newSem(t, rdb, 3, redissem.WithLease(lease))
	kept, err := s.AcquirePermit(ctx, 1)
	require.NoError(t, err)
	released, err := s.AcquirePermit(ctx, 1)
	require.NoError(t, err)
	require.NoError(t, s.Acquire(ctx, 1))

	require.NoError(t, rdb.ConfigSet(ctx, "maxmemory", "1").Err())
	require.ErrorContains(t, rdb.Set(ctx, "probe", "x", 0).Err(), "OOM", "Redis is not full")

	require.NoError(t, released.Release(ctx), "a release refused by a full Redis")
	require.NoError(t, s.ReleaseErr(ctx, 1), "a release refused by a full Redis")
	time.Sleep(3 * lease) // refreshes must get through a full Redis for leases to live
	require.NoError(t, kept.Err(), "the grant was lost while Redis was full")
	assert.Equal(t, int64(2), available(t, s), "the released permits are free")

	err = s.Acquire(ctx, 1)
	require.ErrorIs(t, err, redissem.ErrUnavailable, "a request refused by a full Redis: %v", err)
	assert.ErrorContains(t, err, "OOM")

	require.NoError(t, rdb.ConfigSet(ctx, "maxmemory", "0").Err())
	require.NoError(t, s.Acquire(ctx, 2))
	s.Release(2)
	require.NoError(t, kept.Release(ctx))
}

// R8: Close withdraws its handle's queued requests before it returns, so
// that closing the client next leaves nothing at the head of the queue.
func TestCloseWithdrawsQueuedRequests(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := newClient(t, shared.Addr())
	holder := newSem(t, rdb, 1)
	require.NoError(t, holder.Acquire(ctx, 1))
	waiterClient := newClient(t, shared.Addr())
	var errs errorsCollector
	w, err := redissem.New(context.Background(), waiterClient, holder.Name(), 1, redissem.WithErrorHandler(errs.add))
	require.NoError(t, err)
	done := make(chan error, 3)
	for range 3 {
		go func() { done <- w.Acquire(ctx, 1) }()
	}
	waitFor(t, "3 waiters to queue", queued(t, rdb, holder, 3))
	require.NoError(t, w.Close())
	require.NoError(t, waiterClient.Close())
	assert.True(t, queued(t, rdb, holder, 0)(), "Close left queued requests behind")
	for range 3 {
		require.ErrorIs(t, <-done, redissem.ErrClosed)
	}
	assert.Empty(t, errs.all(), "the waiters' own withdrawals failed on the closed client")
	holder.Release(1)
}

// R4: a Session whose handles live on two servers, one of which stalls
// (SIGSTOP). The handle on the healthy server keeps its grant: its
// refreshes do not queue behind the stalled server's, and the stalled
// handle's lost grant is its own.
func TestSessionStalledServerCostsNoOtherGrant(t *testing.T) {
	t.Parallel()
	stalled, err := startRedis(t.TempDir(), false)
	require.NoError(t, err)
	t.Cleanup(stalled.Kill)
	const lease = time.Second
	ctx := context.Background()
	healthyClient, stalledClient := newClient(t, shared.Addr()), newClient(t, stalled.Addr())
	ss := mustSession(t, healthyClient)
	defer ss.Close()
	healthy := newSem(t, healthyClient, 1, redissem.WithSession(ss), redissem.WithLease(lease))
	other := newSem(t, stalledClient, 1, redissem.WithSession(ss), redissem.WithLease(lease))
	kept, err := healthy.AcquirePermit(ctx, 1)
	require.NoError(t, err)
	lost, err := other.AcquirePermit(ctx, 1)
	require.NoError(t, err)

	require.NoError(t, stalled.cmd.Process.Signal(syscall.SIGSTOP))
	defer func() { _ = stalled.cmd.Process.Signal(syscall.SIGCONT) }()
	select {
	case <-lost.Done():
	case <-time.After(3 * lease):
		t.Fatal("the stalled server's grant did not end")
	}
	require.ErrorIs(t, lost.Err(), redissem.ErrLeaseLost)
	time.Sleep(2 * lease) // more leases for the healthy grant to survive
	require.NoError(t, kept.Err(), "a stalled server cost a grant on a healthy one")
	require.NoError(t, kept.Release(ctx))
}

// New and NewSession talk to Redis within their ctx: a canceled one is
// their error, and a server that cannot be reached is ErrUnavailable.
func TestConstructorsTakeContext(t *testing.T) {
	t.Parallel()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	rdb := newClient(t, shared.Addr())
	_, err := redissem.New(canceled, rdb, uniqueName(t), 1)
	require.ErrorIs(t, err, context.Canceled)
	_, err = redissem.NewSession(canceled, rdb)
	require.ErrorIs(t, err, context.Canceled)

	port, err := freePort()
	require.NoError(t, err)
	nobody := newClient(t, "127.0.0.1:"+strconv.Itoa(port))
	_, err = redissem.NewSession(context.Background(), nobody)
	require.ErrorIs(t, err, redissem.ErrUnavailable)
	_, err = redissem.New(context.Background(), nobody, uniqueName(t), 1)
	require.ErrorIs(t, err, redissem.ErrUnavailable)
}

// Idle names are reclaimed: once nothing is held or queued, every key of a
// name has a TTL, the tombstones' keys go within a tombstone's life and
// meta within a day (TestExpiredNameIsCreatedAfresh follows one to its
// end).
func TestIdleNamesExpire(t *testing.T) {
	t.Parallel()
	const names, lease, timeout = 200, 500 * time.Millisecond, time.Second
	ctx := context.Background()
	rdb := newClient(t, shared.Addr())
	prefix := "idle-" + uniqueName(t) + ":"
	for i := range names {
		s, err := redissem.New(ctx, rdb, strconv.Itoa(i), 2, redissem.WithPrefix(prefix),
			redissem.WithLease(lease), redissem.WithTimeout(timeout))
		require.NoError(t, err)
		require.NoError(t, s.Acquire(ctx, 1))
		p, err := s.AcquirePermit(ctx, 1)
		require.NoError(t, err)
		require.NoError(t, p.Release(ctx))
		s.Release(1)
		require.NoError(t, s.Close())
	}
	keys := func() []string {
		k, err := rdb.Keys(ctx, prefix+"*").Result()
		require.NoError(t, err)
		return k
	}
	left := keys()
	t.Logf("%d names used once leave %d keys", names, len(left))
	for _, k := range left {
		ttl, err := rdb.PTTL(ctx, k).Result()
		require.NoError(t, err)
		// -2: the key expired since KEYS listed it (the first names'
		// tombstones may, on a loaded machine), 0: it expires this
		// millisecond; -1 would mean no TTL.
		require.True(t, ttl >= 0 || ttl == -2, "key %s of an idle name has no TTL (PTTL %v)", k, ttl)
		assert.LessOrEqual(t, ttl, 24*time.Hour)
	}
	waitFor(t, "the tombstones to expire", func() bool { return len(keys()) == names })
	for _, k := range keys() {
		require.Contains(t, k, "}:meta")
	}
}

// R10: while the name's Cluster slot is marked MIGRATING (no key moved
// yet), Redis refuses the scripts, which name keys that may not exist, with
// TRYAGAIN: an error wrapping ErrUnavailable, not a bare server error; and
// once the slot is stable again the semaphore works on.
func TestSlotMigrationIsUnavailable(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 3, 0)
	rdb := c.client(t)
	ctx := context.Background()
	s, err := redissem.New(ctx, rdb, uniqueName(t), 2)
	require.NoError(t, err)
	defer s.Close()
	meta := "redissem:{" + s.Name() + "}:meta"
	slot, err := rdb.ClusterKeySlot(ctx, meta).Result()
	require.NoError(t, err)
	source, err := rdb.MasterForKey(ctx, meta)
	require.NoError(t, err)
	other := c.nodes[0] // every node is a master
	if other.Addr() == source.Options().Addr {
		other = c.nodes[1]
	}
	target := redis.NewClient(&redis.Options{Addr: other.Addr()})
	defer target.Close()
	sourceID, err := source.ClusterMyID(ctx).Result()
	require.NoError(t, err)
	targetID, err := target.ClusterMyID(ctx).Result()
	require.NoError(t, err)
	require.NoError(t, target.Do(ctx, "CLUSTER", "SETSLOT", slot, "IMPORTING", sourceID).Err())
	require.NoError(t, source.Do(ctx, "CLUSTER", "SETSLOT", slot, "MIGRATING", targetID).Err())

	err = s.Acquire(ctx, 1)
	require.ErrorIs(t, err, redissem.ErrUnavailable, "a script refused during a slot migration: %v", err)
	assert.ErrorContains(t, err, "TRYAGAIN")

	require.NoError(t, source.Do(ctx, "CLUSTER", "SETSLOT", slot, "STABLE").Err())
	require.NoError(t, target.Do(ctx, "CLUSTER", "SETSLOT", slot, "STABLE").Err())
	require.NoError(t, s.Acquire(ctx, 1))
	s.Release(1)
}
