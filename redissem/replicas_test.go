package redissem_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/redissem"
)

// The replication guard: with no replica to confirm it, a grant is given
// back and Acquire fails with ErrNotReplicated; with a replica, it holds.
func TestReplicationGuard(t *testing.T) {
	t.Parallel()
	primary, err := startRedis(t.TempDir(), false)
	require.NoError(t, err)
	defer primary.Kill()
	rdb := newClient(t, primary.Addr())
	ctx := context.Background()

	s := newSem(t, rdb, 2, redissem.WithReplicas(1, 100*time.Millisecond))
	err = s.Acquire(ctx, 1)
	require.ErrorIs(t, err, redissem.ErrNotReplicated)
	assert.Contains(t, err.Error(), "0 of 1 replicas confirmed")
	assert.False(t, s.TryAcquire(1))
	assert.Equal(t, int64(2), available(t, s), "the unconfirmed grants were given back")

	require.NoError(t, rdb.ConfigSet(ctx, "repl-diskless-sync-delay", "0").Err(), "sync the replica at once")
	replica, err := startRedis(t.TempDir(), false, "--replicaof", "127.0.0.1", strconv.Itoa(primary.Port))
	require.NoError(t, err)
	defer replica.Kill()
	waitFor(t, "the replica to sync", func() bool {
		return strings.Contains(rdb.Info(ctx, "replication").Val(), "state=online")
	})
	guarded, err := redissem.New(context.Background(), rdb, s.Name(), 2, redissem.WithReplicas(1, 2*time.Second))
	require.NoError(t, err)
	defer guarded.Close()
	require.NoError(t, guarded.Acquire(ctx, 1))
	assert.True(t, guarded.TryAcquire(1))
	assert.Equal(t, int64(0), available(t, s))
	guarded.Release(2)
}

// With WithReplicas, a refresh counts only once the replicas confirm it:
// the replica a failover promotes may otherwise hold an expiry a refresh
// old, and reap the grant while its holder still trusts it. With the
// replica gone, refreshes still reach the primary, and Done closes anyway
// within the lease of the last confirmed one.
func TestUnreplicatedRefreshEndsDone(t *testing.T) {
	t.Parallel()
	const lease = 3 * time.Second
	primary, err := startRedis(t.TempDir(), false, "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0")
	require.NoError(t, err)
	defer primary.Kill()
	replica, err := startRedis(t.TempDir(), false, "--replicaof", "127.0.0.1", strconv.Itoa(primary.Port))
	require.NoError(t, err)
	defer replica.Kill()
	rdb := newClient(t, primary.Addr())
	ctx := context.Background()
	waitFor(t, "the replica to sync", func() bool {
		return strings.Contains(rdb.Info(ctx, "replication").Val(), "state=online")
	})
	s := newSem(t, rdb, 1, redissem.WithLease(lease), redissem.WithReplicas(1, 2*time.Second))
	p, err := s.AcquirePermit(ctx, 1)
	require.NoError(t, err)
	replica.Kill()
	select {
	case <-p.Done():
		require.ErrorIs(t, p.Err(), redissem.ErrLeaseLost)
	case <-time.After(3 * lease):
		t.Fatal("refreshes no replica confirmed kept Done open")
	}
	_ = p.Release(ctx)
}
