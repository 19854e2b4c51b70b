package redissem

import (
	"context"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// liveHandle returns a handle on the tests' Redis server (REDIS_ADDR, set by
// TestMain), closed when t ends.
func liveHandle(t *testing.T, name string, size int64, opts ...Option) *Semaphore {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	t.Cleanup(func() { _ = rdb.Close() })
	s, err := New(context.Background(), rdb, name+"-"+newHandleID(), size, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// An acquire request that reaches Redis after its own withdrawal (it timed
// out at the client, which withdrew it on another connection, and the
// request was still on its way) must not be granted: nobody would hold the
// permits until the lease expired. Redis sees the withdrawal first, then
// the request, as the two orders of arrival below.
func TestRequestAfterItsWithdrawalIsRefused(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"wait", "try"} {
		t.Run(mode, func(t *testing.T) {
			s := liveHandle(t, t.Name(), 1)
			ctx := context.Background()
			s.mu.Lock()
			id := s.nextID()
			s.mu.Unlock()
			s.withdraw(id)
			token, err := s.request(ctx, id, 1, mode)
			assert.Zero(t, token, "the request was granted after its withdrawal")
			assert.ErrorContains(t, err, "withdrawn already")
			free, err := s.Available(ctx)
			require.NoError(t, err)
			assert.Equal(t, int64(1), free, "a permit is taken that nobody holds")
		})
	}
}

// A withdrawal that arrives while the request waits in the queue, followed
// by a poll of the same request (a retried one), must not queue it again.
func TestPollAfterWithdrawalIsRefused(t *testing.T) {
	t.Parallel()
	s := liveHandle(t, t.Name(), 1)
	ctx := context.Background()
	require.True(t, s.TryAcquire(1))
	s.mu.Lock()
	id := s.nextID()
	s.mu.Unlock()
	token, err := s.request(ctx, id, 1, "wait")
	require.NoError(t, err)
	require.Zero(t, token)
	s.withdraw(id)
	_, err = s.request(ctx, id, 1, "wait")
	assert.ErrorContains(t, err, "withdrawn already")
	s.Release(1)
	free, err := s.Available(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(1), free, "the withdrawn request was queued again and granted")
}
