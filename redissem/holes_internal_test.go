package redissem

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// R5: a grant whose Done the handle closed by its own clock (here its wall
// clock steps forward past the grant's validity) is released in Redis, not
// refreshed on: a holder that returns on Done without a Release leaves
// nothing held.
func TestGivenUpGrantIsReleased(t *testing.T) {
	t.Parallel()
	const lease = 600 * time.Millisecond
	var ahead atomic.Int64 // how far the handle's wall clock is stepped
	wall := func(o *options) {
		o.hooks = &hooks{wallClock: func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }}
	}
	s := liveHandle(t, t.Name(), 1, WithLease(lease), wall)
	ctx := context.Background()
	p, err := s.AcquirePermit(ctx, 1)
	require.NoError(t, err)
	ahead.Store(int64(time.Hour))
	require.ErrorIs(t, p.Err(), ErrLeaseLost)
	ahead.Store(0)
	// The holder returns on Done without Release, as documented. Within a
	// refresh the permit is free, long before its lease could run out had
	// the refreshes gone on.
	deadline := time.Now().Add(lease / 2)
	for {
		free, err := s.Available(ctx)
		require.NoError(t, err)
		if free == 1 {
			break
		}
		require.True(t, time.Now().Before(deadline), "the given-up grant is still held in Redis")
		time.Sleep(lease / 30) // real time for the refresher's retry
	}
	require.ErrorIs(t, p.Release(ctx), ErrLeaseLost)
	free, err := s.Available(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(1), free)
}

// R6: two partial releases of one grant travel on different connections;
// the release of the rest reaching Redis first must not make the earlier
// partial one a lost lease.
func TestPartialReleasesOutOfOrder(t *testing.T) {
	t.Parallel()
	s := liveHandle(t, t.Name(), 3)
	ctx := context.Background()
	require.NoError(t, s.Acquire(ctx, 3))
	first, _, _ := s.take(1)
	rest, emptied, _ := s.take(2)
	require.NoError(t, s.sendRelease(ctx, "Release", 2, rest, emptied, false))
	require.NoError(t, s.sendRelease(ctx, "Release", 1, first, nil, false), "a false ErrLeaseLost")
	free, err := s.Available(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(3), free)
}

// R7: a release retried after its tombstone's lease (go-redis retries a
// script whose reply timed out, within the operation's timeout, which may
// be longer than the lease) still finds the release done.
func TestRetriedReleaseAfterALease(t *testing.T) {
	t.Parallel()
	const lease = 300 * time.Millisecond
	s := liveHandle(t, t.Name(), 1, WithLease(lease), WithTimeout(2*time.Second))
	ctx := context.Background()
	require.NoError(t, s.Acquire(ctx, 1))
	pairs, emptied, _ := s.take(1)
	require.NoError(t, s.sendRelease(ctx, "Release", 1, pairs, emptied, false))
	// The retry comes later than a lease, within the timeout, while other
	// scripts keep the semaphore's time going.
	for end := time.Now().Add(2 * lease); time.Now().Before(end); time.Sleep(lease / 6) {
		_, err := s.Available(ctx)
		require.NoError(t, err)
	}
	require.NoError(t, s.sendRelease(ctx, "Release", 1, pairs, emptied, false), "the retry found no tombstone")
}

// A handle that holds nothing goes on using its name after the name
// expired idle (here after a second, not a day): the script finds every key
// gone and creates it afresh, without ErrStateLost. A handle that sent a
// script on the name more recently than that takes the same sight for a
// loss (TestEvictedKeysRefuseGrants, TestLostKeysRefuseGrants).
func TestExpiredNameIsCreatedAfresh(t *testing.T) {
	t.Parallel()
	const idle = time.Second
	s := liveHandle(t, t.Name(), 2, WithLease(300*time.Millisecond), func(o *options) { o.idle = idle })
	ctx := context.Background()
	require.NoError(t, s.Acquire(ctx, 2))
	s.Release(2)
	start := time.Now()
	for {
		n, err := s.rdb.Exists(ctx, s.keys...).Result()
		require.NoError(t, err)
		if n == 0 {
			break
		}
		require.Less(t, time.Since(start), 10*idle, "the idle name's keys did not expire")
		time.Sleep(idle / 10) // Redis expires them in its own time
	}
	require.NoError(t, s.Acquire(ctx, 2), "the expired name was not created afresh")
	ttl, err := s.rdb.PTTL(ctx, s.keys[0]).Result()
	require.NoError(t, err)
	assert.Equal(t, time.Duration(-1), ttl, "a name in use has a TTL")
	s.Release(2)
}

// A handle that sent a script on its name within the idle time finds every
// key gone: the name cannot have expired since, so it is a loss (a
// FLUSHALL, a restart without the data) and grants are refused.
func TestRecentHandleTakesGoneKeysForLoss(t *testing.T) {
	t.Parallel()
	s := liveHandle(t, t.Name(), 2, WithLease(300*time.Millisecond))
	ctx := context.Background()
	require.NoError(t, s.Acquire(ctx, 2))
	s.Release(2)
	require.NoError(t, s.rdb.Del(ctx, s.keys...).Err())
	require.ErrorIs(t, s.Acquire(ctx, 1), ErrStateLost)
}
