package redissem_test

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/redissem"
)

// redisCluster is a Redis Cluster of redis-server processes in cluster mode
// on loopback ports: masters, each with its replicas.
type redisCluster struct {
	nodes []*redisServer
}

// startCluster starts masters*(1+replicas) servers in cluster mode and
// joins them with redis-cli --cluster create; they are killed when t ends.
func startCluster(t *testing.T, masters, replicas int) *redisCluster {
	t.Helper()
	if _, err := exec.LookPath("redis-cli"); err != nil {
		t.Fatal("the Cluster tests need redis-cli (Debian: apt-get install -y redis-tools)")
	}
	c := new(redisCluster)
	t.Cleanup(func() {
		for _, n := range c.nodes {
			n.Kill()
		}
	})
	var addrs []string
	for range masters * (1 + replicas) {
		dir := t.TempDir()
		bus, err := freePort()
		require.NoError(t, err)
		n, err := startRedis(dir, false, "--cluster-enabled", "yes", "--cluster-port", strconv.Itoa(bus),
			"--cluster-config-file", dir+"/nodes.conf", "--cluster-node-timeout", "1000",
			"--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0")
		require.NoError(t, err)
		c.nodes = append(c.nodes, n)
		addrs = append(addrs, n.Addr())
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	out, err := exec.Command("redis-cli", args...).CombinedOutput()
	require.NoError(t, err, "redis-cli --cluster create: %s", out)
	rdb := c.client(t)
	waitFor(t, "the cluster to be ready with every replica in sync", func() bool {
		return c.ready(rdb, masters, replicas)
	})
	return c
}

// ready reports whether every node sees the cluster ok, and every master
// has its replicas online.
func (c *redisCluster) ready(rdb *redis.ClusterClient, masters, replicas int) bool {
	ctx := context.Background()
	for _, n := range c.nodes {
		node := redis.NewClient(&redis.Options{Addr: n.Addr()})
		info, err := node.ClusterInfo(ctx).Result()
		_ = node.Close()
		if err != nil || !strings.Contains(info, "cluster_state:ok") {
			return false
		}
	}
	var online atomic.Int64 // ForEachMaster calls on every master at once
	err := rdb.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		info, err := m.Info(ctx, "replication").Result()
		online.Add(int64(strings.Count(info, "state=online")))
		return err
	})
	return err == nil && online.Load() == int64(masters*replicas)
}

// client returns a Cluster client of c, closed when t ends.
func (c *redisCluster) client(t *testing.T) *redis.ClusterClient {
	rdb := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs:                    []string{c.nodes[0].Addr()},
		DialTimeout:              time.Second,
		ReadTimeout:              2 * time.Second,
		WriteTimeout:             2 * time.Second,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// replicaOf returns the server that replicates the master at addr.
func (c *redisCluster) replicaOf(t *testing.T, addr string) *redisServer {
	t.Helper()
	for _, n := range c.nodes {
		node := redis.NewClient(&redis.Options{Addr: n.Addr()})
		info, err := node.Info(context.Background(), "replication").Result()
		_ = node.Close()
		require.NoError(t, err)
		host, port, _ := net.SplitHostPort(addr)
		if strings.Contains(info, "master_host:"+host) && strings.Contains(info, "master_port:"+port+"\r") {
			return n
		}
	}
	t.Fatalf("no replica of %s", addr)
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// On a Cluster, WithReplicas waits for the replicas of the master that holds
// the semaphore's keys, not for those of whichever master a keyless WAIT
// would reach: with that master's replica dead, every grant is given back,
// while the other masters' replicas are alive. A prefix and a name with
// Cluster in mind work there: every script's keys share one slot.
func TestReplicasOnCluster(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 3, 1)
	rdb := c.client(t)
	ctx := context.Background()
	name := uniqueName(t)
	// The wait is long enough for a replica that a loaded machine has just
	// synced to confirm; the dead replica's grants cost it six times.
	s, err := redissem.New(context.Background(), rdb, name, 2, redissem.WithReplicas(1, time.Second),
		redissem.WithPrefix("app:sem:"))
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Acquire(ctx, 1), "a grant the key's replica received")
	s.Release(1)

	master, err := rdb.MasterForKey(ctx, "app:sem:{"+name+"}:meta")
	require.NoError(t, err)
	c.replicaOf(t, master.Options().Addr).Kill()
	for range 6 { // a keyless WAIT would visit every master in turn
		err := s.Acquire(ctx, 1)
		require.ErrorIs(t, err, redissem.ErrNotReplicated, "a grant its master's dead replica never received was reported replicated")
	}
	assert.Equal(t, int64(2), available(t, s), "the unconfirmed grants were given back")
}
