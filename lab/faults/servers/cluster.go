package servers

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Cluster is a Redis Cluster of redis-server processes in cluster mode on
// loopback ports, each master with its replicas, joined by redis-cli. A
// killed master is replaced by one of its replicas once the others see it
// fail (after the node timeout).
type Cluster struct {
	t     testing.TB
	Nodes []*Redis
}

// ClusterNodeTimeout is how long the nodes wait before they deem a silent
// node failed and promote a replica of a failed master.
const ClusterNodeTimeout = time.Second

// StartCluster starts masters*(1+replicas) servers in cluster mode with
// their data under dir, and joins them; they are killed when t ends.
func StartCluster(t testing.TB, dir string, masters, replicas int) *Cluster {
	t.Helper()
	requireProgram(t, "redis-cli", "redis-tools")
	c := &Cluster{t: t}
	var addrs []string
	for i := range masters * (1 + replicas) {
		d := filepath.Join(dir, "node"+strconv.Itoa(i))
		n := StartRedis(t, d, "--cluster-enabled", "yes", "--cluster-port", strconv.Itoa(freePort(t)),
			"--cluster-config-file", filepath.Join(d, "nodes.conf"),
			"--cluster-node-timeout", strconv.Itoa(int(ClusterNodeTimeout.Milliseconds())),
			"--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0")
		c.Nodes = append(c.Nodes, n)
		addrs = append(addrs, n.Addr())
	}
	args := append(append([]string{"--cluster", "create"}, addrs...), "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	// redis-cli waits for the nodes to agree without a bound of its own; a
	// node that is not ours once held it until the test binary's timeout.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "redis-cli", args...).CombinedOutput(); err != nil {
		t.Fatalf("servers: redis-cli --cluster create: %v\n%s", err, out)
	}
	if err := waitFor(30*time.Second, func() error { return c.ready(masters * replicas) }); err != nil {
		t.Fatalf("servers: the cluster did not come up: %v", err)
	}
	return c
}

// Addrs returns the addresses of the nodes.
func (c *Cluster) Addrs() []string {
	var out []string
	for _, n := range c.Nodes {
		out = append(out, n.Addr())
	}
	return out
}

// ready fails unless every node reports the cluster ok and the masters
// together have the given number of replicas online.
func (c *Cluster) ready(replicas int) error {
	online := 0
	for _, n := range c.Nodes {
		info, err := Command(n.Addr(), "CLUSTER", "INFO")
		if err != nil {
			return err
		}
		if !strings.Contains(info, "cluster_state:ok") {
			return fmt.Errorf("%s: cluster not ok", n.Addr())
		}
		repl, err := Command(n.Addr(), "INFO", "replication")
		if err != nil {
			return err
		}
		online += strings.Count(repl, "state=online")
	}
	if online != replicas {
		return fmt.Errorf("%d of %d replicas online", online, replicas)
	}
	return nil
}

// MasterOf returns the node that serves key now, as the live nodes see it.
func (c *Cluster) MasterOf(key string) (*Redis, error) {
	for _, n := range c.Nodes {
		if !n.srv.Running() {
			continue
		}
		slot, err := Command(n.Addr(), "CLUSTER", "KEYSLOT", key)
		if err != nil {
			return nil, err
		}
		nodes, err := Command(n.Addr(), "CLUSTER", "NODES")
		if err != nil {
			return nil, err
		}
		s, _ := strconv.Atoi(slot)
		for _, line := range strings.Split(nodes, "\n") {
			f := strings.Fields(line)
			if len(f) < 9 || !strings.Contains(f[2], "master") || strings.Contains(f[2], "fail") {
				continue
			}
			for _, r := range f[8:] {
				lo, hi, _ := strings.Cut(r, "-")
				a, _ := strconv.Atoi(lo)
				b := a
				if hi != "" {
					b, _ = strconv.Atoi(hi)
				}
				if a <= s && s <= b {
					return c.node(strings.Split(f[1], "@")[0])
				}
			}
		}
		return nil, fmt.Errorf("no live master serves slot %d", s)
	}
	return nil, fmt.Errorf("no live node")
}

func (c *Cluster) node(addr string) (*Redis, error) {
	for _, n := range c.Nodes {
		if n.Addr() == addr {
			return n, nil
		}
	}
	return nil, fmt.Errorf("no node at %s", addr)
}

// WaitFailover waits until a live node other than old serves key and every
// live node sees the cluster ok, and returns its address.
func (c *Cluster) WaitFailover(old *Redis, key string, timeout time.Duration) (string, error) {
	var now *Redis
	err := waitFor(timeout, func() error {
		m, err := c.MasterOf(key)
		if err != nil {
			return err
		}
		if m == old {
			return fmt.Errorf("%s still serves %s", old.Addr(), key)
		}
		for _, n := range c.Nodes {
			if !n.srv.Running() {
				continue
			}
			if info, err := Command(n.Addr(), "CLUSTER", "INFO"); err != nil || !strings.Contains(info, "cluster_state:ok") {
				return fmt.Errorf("%s does not see the cluster ok yet", n.Addr())
			}
		}
		now = m
		return nil
	})
	if err != nil {
		return "", err
	}
	return now.Addr(), nil
}
