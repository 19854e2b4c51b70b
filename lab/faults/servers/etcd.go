package servers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/semacat/sem/lab/devserver"
)

// MemberEnv is the environment variable that carries an etcd member
// process's configuration, as JSON. A test binary whose TestMain sees it
// set calls [MemberMain] instead of running tests.
const MemberEnv = "FAULTS_ETCD_MEMBER"

// memberSpec is one member's configuration.
type memberSpec struct {
	Name, Dir, ClientURL, PeerURL, InitialCluster string
}

// MemberMain runs the etcd member described by the environment until the
// process is killed, and returns the exit code if the server fails.
func MemberMain() int {
	var m memberSpec
	if err := json.Unmarshal([]byte(os.Getenv(MemberEnv)), &m); err != nil {
		fmt.Fprintln(os.Stderr, "etcd member:", err)
		return 1
	}
	cfg := embed.NewConfig()
	cfg.Name, cfg.Dir = m.Name, m.Dir
	peer, _ := url.Parse(m.PeerURL)
	client, _ := url.Parse(m.ClientURL)
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peer}, []url.URL{*peer}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*client}, []url.URL{*client}
	cfg.InitialCluster = m.InitialCluster
	cfg.InitialClusterToken = "semacat-faults"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	// Clients speak gRPC only. The HTTP gateway would build a logrus logger
	// that reads os.Stderr while the testing package sets it, a data race
	// -race reports in whichever test is running then.
	cfg.EnableGRPCGateway = false
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcd member:", err)
		return 1
	}
	err = <-e.Err() // runs until SIGKILL, unless the server fails
	fmt.Fprintln(os.Stderr, "etcd member:", err)
	return 1
}

// EtcdCluster is a 3-member etcd cluster of separate processes.
type EtcdCluster struct {
	t       testing.TB
	specs   []memberSpec
	members []*exec.Cmd // nil while a member is killed
	// Endpoints are the members' client URLs, in member order.
	Endpoints []string
}

// StartEtcd starts a cluster of n member processes with data under dir and
// returns once it has a leader. The processes are killed when t ends.
func StartEtcd(t testing.TB, dir string, n int) *EtcdCluster {
	t.Helper()
	c := &EtcdCluster{t: t, members: make([]*exec.Cmd, n)}
	var initial []string
	for i := range n {
		m := memberSpec{
			Name:      fmt.Sprintf("m%d", i),
			ClientURL: "http://" + loopback(freePort(t)),
			PeerURL:   "http://" + loopback(freePort(t)),
		}
		m.Dir = filepath.Join(dir, m.Name)
		initial = append(initial, m.Name+"="+m.PeerURL)
		c.specs = append(c.specs, m)
		c.Endpoints = append(c.Endpoints, m.ClientURL)
	}
	for i := range c.specs {
		c.specs[i].InitialCluster = strings.Join(initial, ",")
	}
	t.Cleanup(c.stop)
	for i := range n {
		c.start(i)
	}
	if _, err := c.Leader(30 * time.Second); err != nil {
		t.Fatalf("servers: the etcd cluster has no leader: %v", err)
	}
	return c
}

func (c *EtcdCluster) start(i int) {
	c.t.Helper()
	spec, _ := json.Marshal(c.specs[i])
	exe, err := os.Executable()
	if err != nil {
		c.t.Fatalf("servers: %v", err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), MemberEnv+"="+string(spec))
	cmd.Stderr = os.Stderr
	if err := devserver.Start(cmd); err != nil {
		c.t.Fatalf("servers: starting etcd member %d: %v", i, err)
	}
	c.members[i] = cmd
}

func (c *EtcdCluster) stop() {
	for i := range c.members {
		devserver.Kill(c.members[i])
		c.members[i] = nil
	}
}

// Leader returns the index of the member that every running member names
// as leader, waiting up to timeout for one.
func (c *EtcdCluster) Leader(timeout time.Duration) (int, error) {
	leader := -1
	err := waitFor(timeout, func() error {
		var err error
		leader, err = c.leader()
		return err
	})
	return leader, err
}

func (c *EtcdCluster) leader() (int, error) {
	var ids []uint64
	var leaders []uint64
	for i, m := range c.members {
		if m == nil {
			ids = append(ids, 0)
			continue
		}
		id, lead, err := status(c.Endpoints[i])
		if err != nil {
			return -1, fmt.Errorf("member %d: %w", i, err)
		}
		ids = append(ids, id)
		leaders = append(leaders, lead)
	}
	for _, l := range leaders {
		if l == 0 || l != leaders[0] {
			return -1, fmt.Errorf("the members name leaders %v", leaders)
		}
	}
	for i, id := range ids {
		if id == leaders[0] {
			return i, nil
		}
	}
	return -1, fmt.Errorf("the leader %x is not a running member", leaders[0])
}

// status asks one member for its id and its leader's.
func status(endpoint string) (id, leader uint64, err error) {
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

// Kill sends SIGKILL to member i.
func (c *EtcdCluster) Kill(i int) {
	devserver.Kill(c.members[i])
	c.members[i] = nil
}

// Restart starts killed member i again from its data directory, and waits
// until the cluster has a leader the member agrees on.
func (c *EtcdCluster) Restart(i int) {
	c.t.Helper()
	c.start(i)
	if _, err := c.Leader(30 * time.Second); err != nil {
		c.t.Fatalf("servers: after restarting member %d: %v", i, err)
	}
}
