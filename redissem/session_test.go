package redissem_test

import (
	"context"
	"runtime"
	"slices"
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
	rdb := newClient(t, shared.Addr())
	before := pubsubClients(t, rdb)
	ss := redissem.NewSession(rdb)
	var sems []*redissem.Semaphore
	for range 5 {
		s, err := redissem.New(rdb, uniqueName(t), 1, redissem.WithSession(ss),
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
	_, err := redissem.New(rdb, uniqueName(t), 1, redissem.WithSession(ss))
	require.ErrorIs(t, err, redissem.ErrSessionClosed)
	waitFor(t, "the session's connection to close", func() bool { return pubsubClients(t, rdb) == before })
}

// refreshLog records, at each refresh a handle runs, which handle runs it,
// on which goroutine, and how many round trips the client had made.
type refreshLog struct {
	trips *counter
	mu    sync.Mutex
	calls []refreshCall
}

type refreshCall struct {
	handle    string
	goroutine string
	trips     int64
}

// hook returns a refresh hook that logs handle's refreshes and lets them
// run.
func (l *refreshLog) hook(handle string) redissem.Option {
	return redissem.WithRefreshPaused(func() bool {
		var buf [64]byte
		id, _, _ := strings.Cut(string(buf[:runtime.Stack(buf[:], false)]), " [")
		l.mu.Lock()
		defer l.mu.Unlock()
		l.calls = append(l.calls, refreshCall{handle, id, l.trips.trips.Load()})
		return false
	})
}

func (l *refreshLog) snapshot() []refreshCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.calls)
}

// Two names on one Session, one with a lease of 1.5s and one of 30s, are
// refreshed by one goroutine in shared rounds at the shorter interval: each
// round of the first also refreshes the second, two scripts a round. With
// a refresher per handle, the second would refresh every 10s, one script
// between two refreshes of the first. (The Session takes its handles in
// the same order every round.)
func TestSessionRefreshesEveryNameInOneRound(t *testing.T) {
	log := &refreshLog{trips: &counter{}}
	rdb := newClient(t, shared.Addr(), log.trips)
	ss := redissem.NewSession(rdb)
	defer func() { require.NoError(t, ss.Close()) }()
	short, err := redissem.New(rdb, uniqueName(t), 1, redissem.WithSession(ss),
		redissem.WithLease(1500*time.Millisecond), log.hook("short"))
	require.NoError(t, err)
	long, err := redissem.New(rdb, uniqueName(t), 1, redissem.WithSession(ss),
		redissem.WithLease(30*time.Second), log.hook("long"))
	require.NoError(t, err)
	p1, err := short.AcquirePermit(context.Background(), 1)
	require.NoError(t, err)
	p2, err := long.AcquirePermit(context.Background(), 1)
	require.NoError(t, err)

	rounds := func() []refreshCall {
		var of []refreshCall
		for _, c := range log.snapshot() {
			if c.handle == "short" {
				of = append(of, c)
			}
		}
		return of
	}
	waitFor(t, "six refreshes of the short lease", func() bool { return len(rounds()) >= 6 })
	calls, starts := log.snapshot(), rounds()
	for _, c := range calls {
		assert.Equal(t, calls[0].goroutine, c.goroutine, "refreshes ran on more than one goroutine")
	}
	// The first rounds may load the script (a second round trip).
	for i := 3; i < len(starts); i++ {
		assert.Equal(t, int64(2), starts[i].trips-starts[i-1].trips, "scripts in round %d", i)
	}
	assert.NoError(t, p1.Err())
	assert.NoError(t, p2.Err())
	require.NoError(t, p1.Release(context.Background()))
	require.NoError(t, p2.Release(context.Background()))
}

// Closing the Session ends the Permits of every handle on it, on two names,
// and gives their permits back in Redis.
func TestSessionCloseEndsEveryHandle(t *testing.T) {
	rdb := newClient(t, shared.Addr())
	ss := redissem.NewSession(rdb)
	var sems []*redissem.Semaphore
	var permits []*redissem.Permit
	for range 2 {
		s, err := redissem.New(rdb, uniqueName(t), 1, redissem.WithSession(ss))
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

// When a refresh finds the grant of one name gone from Redis, the Permits
// of every handle on the Session end with ErrLeaseLost, the other name's
// too, and the handles still grant afresh.
func TestSessionLostEndsEveryHandle(t *testing.T) {
	rdb := newClient(t, shared.Addr())
	ss := redissem.NewSession(rdb)
	defer func() { require.NoError(t, ss.Close()) }()
	var sems []*redissem.Semaphore
	var permits []*redissem.Permit
	for range 2 {
		s, err := redissem.New(rdb, uniqueName(t), 2, redissem.WithSession(ss),
			redissem.WithLease(3*time.Second))
		require.NoError(t, err)
		p, err := s.AcquirePermit(context.Background(), 1)
		require.NoError(t, err)
		sems, permits = append(sems, s), append(permits, p)
	}
	prefix := "redissem:{" + sems[0].Name() + "}:"
	require.NoError(t, rdb.Del(context.Background(), prefix+"holders").Err())
	for i, p := range permits {
		select {
		case <-p.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("the Permit on %q is still open", sems[i].Name())
		}
		require.ErrorIs(t, p.Err(), redissem.ErrLeaseLost)
	}
	p, err := sems[1].AcquirePermit(context.Background(), 1)
	require.NoError(t, err)
	require.NoError(t, p.Release(context.Background()))
}
