// Package etcd starts etcd clusters inside the current process, on
// loopback ports chosen by the kernel, for the tests and demos of the
// development code that uses etcdsem (the recipes in the docs, semdemo).
// Nothing needs to be installed.
package etcd

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/semacat/sem/lab/devserver"
)

// Cluster is a set of etcd members running in this process.
type Cluster struct {
	// Members are the running servers; a stopped member's entry is nil.
	Members []*embed.Etcd
	// Endpoints are the members' client URLs, in member order.
	Endpoints []string
}

// Start starts an n-member cluster whose data lives under dir, and returns
// once it has elected a leader. Fsync is disabled: the data is a test's.
func Start(dir string, n int) (*Cluster, error) {
	peers := make([]string, n)
	var initial []string
	for i := range peers {
		port, err := devserver.FreePort()
		if err != nil {
			return nil, err
		}
		peers[i] = fmt.Sprintf("http://127.0.0.1:%d", port)
		initial = append(initial, fmt.Sprintf("m%d=%s", i, peers[i]))
	}
	c := &Cluster{Members: make([]*embed.Etcd, n), Endpoints: make([]string, n)}
	for i := range n {
		cfg := embed.NewConfig()
		cfg.Name = fmt.Sprintf("m%d", i)
		cfg.Dir = filepath.Join(dir, cfg.Name)
		peer, _ := url.Parse(peers[i])
		client, _ := url.Parse("http://127.0.0.1:0")
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peer}, []url.URL{*peer}
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*client}, []url.URL{*client}
		cfg.InitialCluster = strings.Join(initial, ",")
		cfg.InitialClusterToken = "devserver-etcd"
		cfg.UnsafeNoFsync = true
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
		// Clients speak gRPC only. The HTTP gateway would build a logrus logger
		// that reads os.Stderr while the testing package sets it, a data race
		// -race reports in whichever test is running then.
		cfg.EnableGRPCGateway = false
		e, err := embed.StartEtcd(cfg)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("etcd: starting member %d: %w", i, err)
		}
		c.Members[i] = e
		c.Endpoints[i] = "http://" + e.Clients[0].Addr().String()
	}
	for i, e := range c.Members {
		select {
		case <-e.Server.ReadyNotify():
		case err := <-e.Err():
			c.Close()
			return nil, fmt.Errorf("etcd: member %d: %w", i, err)
		case <-time.After(30 * time.Second):
			c.Close()
			return nil, errors.New("etcd: the cluster did not become ready within 30s")
		}
	}
	return c, nil
}

// Single starts a one-member cluster whose data lives under dir, as
// [Start] does, and a client of it; stop closes the client, then the
// cluster.
func Single(dir string) (c *Cluster, cli *clientv3.Client, stop func(), err error) {
	c, err = Start(dir, 1)
	if err != nil {
		return nil, nil, nil, err
	}
	cli, err = c.Client()
	if err != nil {
		c.Close()
		return nil, nil, nil, fmt.Errorf("etcd: a client of the cluster: %w", err)
	}
	return c, cli, func() { cli.Close(); c.Close() }, nil
}

// Client returns a client of the cluster's members (all of them unless
// members are given), with a quiet logger.
func (c *Cluster) Client(members ...int) (*clientv3.Client, error) {
	eps := c.Endpoints
	if len(members) > 0 {
		eps = nil
		for _, i := range members {
			eps = append(eps, c.Endpoints[i])
		}
	}
	return clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
}

// Leader returns the index of the member that is leader, or -1 if none of
// the running members knows one.
func (c *Cluster) Leader() int {
	for i, e := range c.Members {
		if e != nil && e.Server.Leader() == e.Server.MemberID() {
			return i
		}
	}
	return -1
}

// Stop stops member i, as if its machine went away.
func (c *Cluster) Stop(i int) {
	if c.Members[i] != nil {
		c.Members[i].Close()
		c.Members[i] = nil
	}
}

// Close stops every member still running.
func (c *Cluster) Close() {
	for i := range c.Members {
		c.Stop(i)
	}
}
