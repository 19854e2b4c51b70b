package etcdsem_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/semacat/sem/etcdsem"
)

// newSession returns a session on cli, closed when t ends.
func newSession(t *testing.T) *etcdsem.Session {
	t.Helper()
	ss, err := etcdsem.NewSession(context.Background(), cli, etcdsem.WithLease(5*time.Second))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, ss.Close()) })
	return ss
}

// onSession returns a handle on the semaphore name made with ss, closed
// when t ends.
func onSession(t *testing.T, ss *etcdsem.Session, name string, size int64) *etcdsem.Semaphore {
	t.Helper()
	s, err := etcdsem.New(context.Background(), cli, name, size, etcdsem.WithSession(ss))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	return s
}

// leases returns the leases etcd knows.
func leases(t *testing.T) map[clientv3.LeaseID]bool {
	t.Helper()
	resp, err := cli.Leases(context.Background())
	require.NoError(t, err)
	ids := make(map[clientv3.LeaseID]bool)
	for _, l := range resp.Leases {
		ids[l.ID] = true
	}
	return ids
}

// Handles on one session, on two names and twice on one name, share its
// one lease, keep their keys apart (neither takes the other's key, nor
// sweeps it), and closing one deletes only its own keys. Not parallel: it
// counts every lease on the shared server, and a serial test runs before
// the parallel ones start.
func TestSessionSharesOneLease(t *testing.T) {
	before := leases(t)
	ss := newSession(t)
	name := uniqueName(t)
	a := onSession(t, ss, name, 2)
	twin := onSession(t, ss, name, 2)
	other := onSession(t, ss, uniqueName(t), 1)
	var granted []clientv3.LeaseID // (leases of earlier tests may expire meanwhile)
	for id := range leases(t) {
		if !before[id] {
			granted = append(granted, id)
		}
	}
	assert.Equal(t, []clientv3.LeaseID{ss.Lease()}, granted, "one lease for the session and its three handles")
	for _, s := range []*etcdsem.Semaphore{a, twin, other} {
		assert.Equal(t, ss.Lease(), s.Lease())
	}

	require.True(t, a.TryAcquire(1))
	require.True(t, twin.TryAcquire(1))
	require.True(t, other.TryAcquire(1))
	assert.Equal(t, int64(0), available(t, a), "a and its twin hold one key each")
	require.NoError(t, a.Sweep())
	require.NoError(t, twin.Sweep())
	assert.Equal(t, int64(0), available(t, a), "neither swept the other's key")

	require.NoError(t, a.Close())
	assert.Equal(t, int64(1), available(t, twin), "closing a deleted its key")
	require.NoError(t, twin.ReleaseErr(context.Background(), 1), "the twin's key outlived a's Close")
	require.NoError(t, other.ReleaseErr(context.Background(), 1))
	select {
	case <-ss.Done():
		t.Fatal("closing a handle ended its session")
	default:
	}
}

// Closing a session revokes its lease: every handle on it loses its
// grants, its Permits' Done close, its waiters fail, and the permits are
// free for others; New on the closed session fails.
func TestSessionCloseEndsEveryHandle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ss, err := etcdsem.NewSession(context.Background(), cli, etcdsem.WithLease(5*time.Second))
	require.NoError(t, err)
	a := onSession(t, ss, uniqueName(t), 1)
	b := onSession(t, ss, uniqueName(t), 2)
	outsider := otherHandle(t, b) // a lease of its own
	p, err := a.AcquirePermit(ctx, 1)
	require.NoError(t, err)
	require.True(t, b.TryAcquire(2))
	waiter := acquireWithin(b, 1, 20*time.Second)
	settleQueued(t, b, 2, b)

	require.NoError(t, ss.Close())
	await(t, p.Done())
	for _, err := range []error{p.Err(), await(t, waiter)} {
		require.ErrorIs(t, err, etcdsem.ErrLeaseLost)
		require.ErrorIs(t, err, etcdsem.ErrSessionClosed)
	}
	await(t, ss.Done())
	assert.Equal(t, int64(2), available(t, outsider), "the revoked lease took b's keys")
	require.True(t, outsider.TryAcquire(2))
	outsider.Release(2)
	_, err = etcdsem.New(context.Background(), cli, uniqueName(t), 1, etcdsem.WithSession(ss))
	require.ErrorIs(t, err, etcdsem.ErrSessionClosed)
}

// When one handle learns that the server no longer knows the session's
// lease, every handle on the session stops trusting it at once.
func TestSessionLostEndsEveryHandle(t *testing.T) {
	t.Parallel()
	ss := newSession(t)
	a := onSession(t, ss, uniqueName(t), 1)
	b := onSession(t, ss, uniqueName(t), 1)
	p, err := b.AcquirePermit(context.Background(), 1)
	require.NoError(t, err)
	_, err = cli.Revoke(context.Background(), ss.Lease()) // as etcd does when the TTL runs out
	require.NoError(t, err)

	assert.False(t, a.TryAcquire(1), "a's write finds the lease gone")
	select {
	case <-p.Done():
	default:
		t.Fatal("a learned that the session's lease is gone, and b's permit still trusts it")
	}
	require.ErrorIs(t, p.Err(), etcdsem.ErrLeaseLost)
	await(t, ss.Done())
}
