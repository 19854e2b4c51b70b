package oracle

import (
	"context"
	"fmt"
	"os/exec"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem"
	"github.com/semacat/sem/lab/devserver"
	"github.com/semacat/sem/redissem"
)

// redissem's histories, on a redis-server of its own on loopback: one
// handle per semaphore, shared by the goroutines of a history, as the
// callers of one process share it. Every call is a round trip, so the
// check records fewer histories than for the local strategies.
func TestRedisSem(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not on PATH")
	}
	srv, err := devserver.StartRedis(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(srv.Kill)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })

	var handles []*redissem.Semaphore
	newSem := func(size int64) sem.Semaphore {
		s, err := redissem.New(context.Background(), rdb, fmt.Sprintf("oracle-%d", len(handles)), size)
		require.NoError(t, err)
		handles = append(handles, s)
		return s
	}
	cfg := config(t)
	cfg.Histories /= 5
	tally := Check(newSem, cfg)
	for _, s := range handles {
		assert.NoError(t, s.Close())
	}
	t.Logf("redissem      %s", tally)
	if tally.Example != "" {
		t.Logf("first failing %s", tally.Example)
	}
	assert.Zero(t, tally.Not, "histories that are not linearizable")
	assert.Zero(t, tally.Hung, "histories whose calls never returned")
}
