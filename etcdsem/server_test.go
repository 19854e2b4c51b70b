package etcdsem_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// etcdEnv names the etcd server binary the tests run, each member as its own
// process; without it they look for etcd on PATH.
const etcdEnv = "ETCDSEM_TEST_ETCD"

// etcdBinary returns the path of the etcd server to test against, or an
// error that says how to get one.
func etcdBinary() (string, error) {
	if bin := os.Getenv(etcdEnv); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("%s=%s: %w", etcdEnv, bin, err)
		}
		return bin, nil
	}
	if bin, err := exec.LookPath("etcd"); err == nil {
		return bin, nil
	}
	return "", errors.New("etcdsem's tests need an etcd server binary: set " + etcdEnv +
		" to its path, or put etcd on PATH. From a clone of the repository, `make test` builds one;" +
		" by hand: (cd lab/devserver && go build -o /tmp/etcd ./cmd/etcd) and " + etcdEnv + "=/tmp/etcd;" +
		" or install an etcd release (https://etcd.io/docs/latest/install/)")
}

// cluster is an etcd cluster whose members are separate processes on
// loopback ports, with their data and logs in one directory.
type cluster struct {
	bin, dir string
	args     [][]string  // each member's command line
	procs    []*exec.Cmd // nil while a member is stopped
	// Endpoints are the members' client URLs, in member order.
	Endpoints []string
}

// startCluster starts an n-member cluster with its data under dir, each
// member with the extra flags, and returns once every member names the
// same leader. A port taken by someone else meanwhile costs a retry on
// other ports, three tries in all.
func startCluster(bin, dir string, n int, extra ...string) (*cluster, error) {
	var err error
	for try := range 3 {
		var c *cluster
		if c, err = tryCluster(bin, filepath.Join(dir, strconv.Itoa(try)), n, extra); err == nil {
			return c, nil
		}
	}
	return nil, err
}

func tryCluster(bin, dir string, n int, extra []string) (*cluster, error) {
	c := &cluster{bin: bin, dir: dir, procs: make([]*exec.Cmd, n)}
	peers := make([]string, n)
	var initial []string
	for i := range n {
		client, err := freeURL()
		if err != nil {
			return nil, err
		}
		if peers[i], err = freeURL(); err != nil {
			return nil, err
		}
		c.Endpoints = append(c.Endpoints, client)
		initial = append(initial, fmt.Sprintf("m%d=%s", i, peers[i]))
	}
	for i := range n {
		c.args = append(c.args, []string{
			"--name", fmt.Sprintf("m%d", i),
			"--data-dir", filepath.Join(dir, fmt.Sprintf("m%d", i)),
			"--listen-client-urls", c.Endpoints[i], "--advertise-client-urls", c.Endpoints[i],
			"--listen-peer-urls", peers[i], "--initial-advertise-peer-urls", peers[i],
			"--initial-cluster", strings.Join(initial, ","),
			"--initial-cluster-token", "etcdsem-test", "--initial-cluster-state", "new",
			"--unsafe-no-fsync", "--log-level", "error",
		})
		c.args[i] = append(c.args[i], extra...)
		if err := c.start(i); err != nil {
			c.close()
			return nil, err
		}
	}
	if err := c.waitLeader(30 * time.Second); err != nil {
		c.close()
		return nil, fmt.Errorf("etcd cluster of %d in %s: %w", n, dir, err)
	}
	return c, nil
}

// freeURL returns the URL of a loopback port that was free a moment ago.
func freeURL() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return "http://" + l.Addr().String(), nil
}

// start starts member i's process, its output going to a log in the
// cluster's directory.
func (c *cluster) start(i int) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	log, err := os.OpenFile(c.logPath(i), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(c.bin, c.args[i]...)
	cmd.Stdout, cmd.Stderr = log, log
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting etcd member %d (%s): %w", i, c.bin, err)
	}
	c.procs[i] = cmd
	return nil
}

func (c *cluster) logPath(i int) string { return filepath.Join(c.dir, fmt.Sprintf("m%d.log", i)) }

// client returns a client of the given members (all of them if none are
// given), with a quiet logger.
func (c *cluster) client(members ...int) (*clientv3.Client, error) {
	eps := c.Endpoints
	if len(members) > 0 {
		eps = nil
		for _, i := range members {
			eps = append(eps, c.Endpoints[i])
		}
	}
	return clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
}

// waitLeader waits until every running member names the same leader.
func (c *cluster) waitLeader(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		_, err := c.leader()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			var logs strings.Builder
			for i := range c.procs {
				log, _ := os.ReadFile(c.logPath(i))
				fmt.Fprintf(&logs, "\nmember %d's log:\n%s", i, log)
			}
			return fmt.Errorf("no leader within %v: %w%s", timeout, err, logs.String())
		}
		time.Sleep(50 * time.Millisecond) // polling other processes: nothing to wait on
	}
}

// leader returns the index of the member that every running member names as
// leader.
func (c *cluster) leader() (int, error) {
	var lead uint64
	ids := make([]uint64, len(c.procs))
	for i, p := range c.procs {
		if p == nil {
			continue
		}
		id, l, err := memberStatus(c.Endpoints[i])
		if err != nil {
			return -1, fmt.Errorf("member %d: %w", i, err)
		}
		if l == 0 || (lead != 0 && l != lead) {
			return -1, fmt.Errorf("member %d names leader %x, another %x", i, l, lead)
		}
		ids[i], lead = id, l
	}
	for i, id := range ids {
		if id != 0 && id == lead {
			return i, nil
		}
	}
	return -1, fmt.Errorf("the leader %x is not a running member", lead)
}

// memberStatus asks one member for its id and its leader's.
func memberStatus(endpoint string) (id, leader uint64, err error) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: time.Second, Logger: zap.NewNop()})
	if err != nil {
		return 0, 0, err
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	st, err := cli.Status(ctx, endpoint)
	if err != nil {
		return 0, 0, err
	}
	return st.Header.MemberId, st.Leader, nil
}

// stop stops member i gracefully (SIGTERM: a leader hands its leadership
// over first), as an operator stopping a machine would, and waits for it.
func (c *cluster) stop(i int) {
	c.signal(i, syscall.SIGTERM)
}

// close kills every member still running.
func (c *cluster) close() {
	for i := range c.procs {
		c.signal(i, syscall.SIGKILL)
	}
}

func (c *cluster) signal(i int, sig syscall.Signal) {
	p := c.procs[i]
	if p == nil {
		return
	}
	_ = p.Process.Signal(sig)
	_ = p.Wait()
	c.procs[i] = nil
}
