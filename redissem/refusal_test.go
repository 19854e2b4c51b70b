package redissem_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/redissem"
)

// A primary with min-replicas-to-write and no replica refuses every write
// with NOREPLICAS: a refusal like OOM or READONLY, so ErrUnavailable for
// New, Acquire and Permit.Release alike.
func TestNoReplicasIsUnavailable(t *testing.T) {
	t.Parallel()
	srv, err := startRedis(t.TempDir(), false)
	require.NoError(t, err)
	defer srv.Kill()
	rdb := newClient(t, srv.Addr())
	ctx := context.Background()
	s := newSem(t, rdb, 2, redissem.WithTimeout(time.Second))
	p, err := s.AcquirePermit(ctx, 1)
	require.NoError(t, err)
	require.NoError(t, rdb.ConfigSet(ctx, "min-replicas-to-write", "1").Err())

	_, err = redissem.New(ctx, rdb, uniqueName(t), 1)
	require.ErrorIs(t, err, redissem.ErrUnavailable, "New")
	assert.Contains(t, err.Error(), "NOREPLICAS")
	require.ErrorIs(t, s.Acquire(ctx, 1), redissem.ErrUnavailable, "Acquire")
	require.ErrorIs(t, p.Release(ctx), redissem.ErrUnavailable, "Permit.Release")

	require.NoError(t, rdb.ConfigSet(ctx, "min-replicas-to-write", "0").Err())
	waitFor(t, "the retried release", func() bool { return available(t, s) == 2 })
}

// New and NewSession on a port nothing listens on fail with an error that
// says Redis is unreachable, and, if ctx expired, that it did too.
func TestNewRefusedPortIsUnavailable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	rdb := newClient(t, addr)

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = redissem.New(ctx, rdb, uniqueName(t), 1)
	require.ErrorIs(t, err, redissem.ErrUnavailable, "New: %v", err)
	require.ErrorIs(t, err, context.DeadlineExceeded, "New: %v", err)

	// The pub/sub connection's dial is not retried: NewSession fails at
	// once, before ctx expires; with ctx expired first, it says both.
	_, err = redissem.NewSession(context.Background(), rdb)
	require.ErrorIs(t, err, redissem.ErrUnavailable, "NewSession: %v", err)
	_, err = redissem.NewSession(ctx, rdb)
	require.ErrorIs(t, err, redissem.ErrUnavailable, "NewSession: %v", err)
	require.ErrorIs(t, err, context.DeadlineExceeded, "NewSession: %v", err)
}
