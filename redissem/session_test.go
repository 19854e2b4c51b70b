package redissem_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/redissem"
)

// pubsubClients counts the server's clients in pub/sub mode.
func pubsubClients(t *testing.T, rdb *redis.Client) int {
	list, err := rdb.Do(context.Background(), "CLIENT", "LIST", "TYPE", "pubsub").Text()
	require.NoError(t, err)
	return strings.Count(list, "\n")
}

// Handles on five names made with one Session hold one pub/sub connection
// between them, and a waiter on any of them is woken by its notification,
// not by its refresh, which is seconds away.
func TestSessionSharesOneConnection(t *testing.T) {
	t.Parallel()
	// A server of its own: it counts the server's pub/sub clients, and
	// other tests' handles subscribe too.
	srv, err := startRedis(t.TempDir(), false)
	require.NoError(t, err)
	t.Cleanup(srv.Kill)
	rdb := newClient(t, srv.Addr())
	before := pubsubClients(t, rdb)
	ss := mustSession(t, rdb)
	var sems []*redissem.Semaphore
	for range 5 {
		s, err := redissem.New(context.Background(), rdb, uniqueName(t), 1, redissem.WithSession(ss),
			redissem.WithLease(30*time.Second), redissem.WithPollInterval(10*time.Second))
		require.NoError(t, err)
		sems = append(sems, s)
	}
	waitFor(t, "the session's subscriptions", func() bool { return pubsubClients(t, rdb) == before+1 })

	s := sems[3]
	require.True(t, s.TryAcquire(1))
	done := acquireWithin(s, 1, 5*time.Second)
	waitFor(t, "the waiter to queue", queued(t, rdb, s, 1))
	start := time.Now()
	s.Release(1)
	require.NoError(t, <-done)
	assert.Less(t, time.Since(start), 2*time.Second, "the waiter was not woken by its notification")
	s.Release(1)

	for _, s := range sems {
		require.NoError(t, s.Close())
	}
	require.NoError(t, ss.Close())
	_, err = redissem.New(context.Background(), rdb, uniqueName(t), 1, redissem.WithSession(ss))
	require.ErrorIs(t, err, redissem.ErrSessionClosed)
	waitFor(t, "the session's connection to close", func() bool { return pubsubClients(t, rdb) == before })
}

// refreshLog records, at each refresh a handle runs, which handle runs it
// and how many round trips the client had made.
type refreshLog struct {
	trips *counter
	mu    sync.Mutex
	calls []refreshCall
}

type refreshCall struct {
	handle string
	trips  int64
}

// hook returns a refresh hook that logs handle's refreshes and lets them
// run.
func (l *refreshLog) hook(handle string) redissem.Option {
	return redissem.WithRefreshPaused(func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.calls = append(l.calls, refreshCall{handle, l.trips.trips.Load()})
		return false
	})
}

func (l *refreshLog) of(handle string) []refreshCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	var of []refreshCall
	for _, c := range l.calls {
		if c.handle == handle {
			of = append(of, c)
		}
	}
	return of
}

// Two names on one Session, one with a lease of 1.5s and one of 30s, are
// refreshed each on its own schedule, as their own refreshers would: the
// first every half second, one script each, and the second not once in
// that time (a shared round would refresh it with the first).
// Not parallel: it counts refreshes against a schedule in real time, and a
// serial test runs alone.
func TestSessionRefreshesEachHandleOnItsSchedule(t *testing.T) {
	log := &refreshLog{trips: &counter{}}
	rdb := newClient(t, shared.Addr(), log.trips)
	ss := mustSession(t, rdb)
	defer func() { require.NoError(t, ss.Close()) }()
	short, err := redissem.New(context.Background(), rdb, uniqueName(t), 1, redissem.WithSession(ss),
		redissem.WithLease(1500*time.Millisecond), log.hook("short"))
	require.NoError(t, err)
	long, err := redissem.New(context.Background(), rdb, uniqueName(t), 1, redissem.WithSession(ss),
		redissem.WithLease(30*time.Second), log.hook("long"))
	require.NoError(t, err)
	p1, err := short.AcquirePermit(context.Background(), 1)
	require.NoError(t, err)
	p2, err := long.AcquirePermit(context.Background(), 1)
	require.NoError(t, err)
	// A handle joining the Session, and a grant, are refreshed at the
	// next rounds; on a loaded machine those can come after the grants,
	// and the first refreshes may load the script (a second round trip).
	// So the count starts after three refreshes of the short lease, when
	// both handles' first rounds are over.
	waitFor(t, "three refreshes of the short lease", func() bool { return len(log.of("short")) >= 3 })
	longBefore, from := len(log.of("long")), len(log.of("short"))
	require.Positive(t, longBefore, "the long lease was not refreshed once it joined")

	waitFor(t, "four more refreshes of the short lease", func() bool { return len(log.of("short")) >= from+4 })
	assert.Equal(t, longBefore, len(log.of("long")), "the long lease was refreshed with the short one")
	// Only the intervals that start at or after the count's start: the
	// one that ends at refresh from began in the first rounds.
	starts := log.of("short")
	for i := from + 1; i < len(starts); i++ {
		assert.Equal(t, int64(1), starts[i].trips-starts[i-1].trips, "scripts between refreshes %d and %d", i-1, i)
	}
	assert.NoError(t, p1.Err())
	assert.NoError(t, p2.Err())
	require.NoError(t, p1.Release(context.Background()))
	require.NoError(t, p2.Release(context.Background()))
}

// Closing the Session ends the Permits of every handle on it, on two names,
// and gives their permits back in Redis.
func TestSessionCloseEndsEveryHandle(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, shared.Addr())
	ss := mustSession(t, rdb)
	var sems []*redissem.Semaphore
	var permits []*redissem.Permit
	for range 2 {
		s, err := redissem.New(context.Background(), rdb, uniqueName(t), 1, redissem.WithSession(ss))
		require.NoError(t, err)
		p, err := s.AcquirePermit(context.Background(), 1)
		require.NoError(t, err)
		sems, permits = append(sems, s), append(permits, p)
	}
	require.NoError(t, ss.Close())
	for i, p := range permits {
		select {
		case <-p.Done():
		default:
			t.Fatalf("the Permit on %q is still open", sems[i].Name())
		}
		require.ErrorIs(t, p.Err(), redissem.ErrSessionClosed)
		require.ErrorIs(t, p.Err(), redissem.ErrClosed)
		assert.Equal(t, int64(1), available(t, sems[i]), "the permit of %q is still held in Redis", sems[i].Name())
		require.ErrorIs(t, sems[i].Acquire(context.Background(), 1), redissem.ErrClosed)
		require.NoError(t, sems[i].Close())
	}
}

// When a refresh finds the grant of one name gone from Redis, that
// Permit ends with ErrLeaseLost and the other name's lives on: each grant
// is a lease of its own in Redis. The handle still grants afresh.
func TestSessionLostEndsOnlyItsGrant(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, shared.Addr())
	ss := mustSession(t, rdb)
	defer func() { require.NoError(t, ss.Close()) }()
	const lease = 3 * time.Second
	var sems []*redissem.Semaphore
	var permits []*redissem.Permit
	for range 2 {
		s, err := redissem.New(context.Background(), rdb, uniqueName(t), 2, redissem.WithSession(ss), redissem.WithLease(lease))
		require.NoError(t, err)
		p, err := s.AcquirePermit(context.Background(), 1)
		require.NoError(t, err)
		sems, permits = append(sems, s), append(permits, p)
	}
	prefix := "redissem:{" + sems[0].Name() + "}:"
	require.NoError(t, rdb.Del(context.Background(), prefix+"holders").Err())
	select {
	case <-permits[0].Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("the Permit on %q is still open", sems[0].Name())
	}
	require.ErrorIs(t, permits[0].Err(), redissem.ErrLeaseLost)
	time.Sleep(lease) // the other grant's refreshes go on
	require.NoError(t, permits[1].Err(), "a lost grant on one name ended the other's")
	require.NoError(t, permits[1].Release(context.Background()))
	p, err := sems[1].AcquirePermit(context.Background(), 1)
	require.NoError(t, err)
	require.NoError(t, p.Release(context.Background()))
}
