package redissem_test

import (
	"context"
	"strings"
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
