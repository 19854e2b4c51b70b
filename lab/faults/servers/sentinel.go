package servers

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/semacat/sem/lab/devserver"
)

// MasterName is the name under which the Sentinel monitors its primary.
const MasterName = "faults"

// Sentinel is a Redis primary, one replica, and one redis-sentinel with
// quorum 1 that fails the primary over to the replica.
type Sentinel struct {
	t        testing.TB
	Primary  *Redis
	Replica  *Redis
	port     int
	sentinel *exec.Cmd
}

// StartSentinel starts the three processes with data under dir and returns
// once the Sentinel knows the replica, which is in sync with the primary.
// The Sentinel declares a primary down after downAfter without an answer.
func StartSentinel(t testing.TB, dir string, downAfter time.Duration) *Sentinel {
	t.Helper()
	requireProgram(t, "redis-sentinel", "redis-sentinel")
	s := &Sentinel{t: t, port: freePort(t)}
	s.Primary = StartRedis(t, filepath.Join(dir, "primary"))
	s.Replica = StartRedis(t, filepath.Join(dir, "replica"), "--replicaof", "127.0.0.1", fmt.Sprint(s.Primary.srv.Port))
	if err := waitFor(20*time.Second, func() error {
		return expect(s.Replica.Addr(), "master_link_status:up", "INFO", "replication")
	}); err != nil {
		t.Fatalf("servers: the replica did not sync: %v", err)
	}
	conf := filepath.Join(dir, "sentinel.conf")
	text := strings.Join([]string{
		fmt.Sprintf("port %d", s.port),
		"bind 127.0.0.1",
		"dir " + dir,
		"logfile " + filepath.Join(dir, "sentinel.log"),
		fmt.Sprintf("sentinel monitor %s 127.0.0.1 %d 1", MasterName, s.Primary.srv.Port),
		fmt.Sprintf("sentinel down-after-milliseconds %s %d", MasterName, downAfter.Milliseconds()),
		fmt.Sprintf("sentinel failover-timeout %s 5000", MasterName),
		"",
	}, "\n")
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatalf("servers: %v", err)
	}
	s.sentinel = exec.Command("redis-sentinel", conf)
	if err := devserver.Start(s.sentinel); err != nil {
		t.Fatalf("servers: starting redis-sentinel: %v", err)
	}
	t.Cleanup(func() { devserver.Kill(s.sentinel) })
	if err := waitFor(20*time.Second, func() error {
		return expect(s.Addr(), "slave", "SENTINEL", "REPLICAS", MasterName)
	}); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "sentinel.log"))
		t.Fatalf("servers: the sentinel does not see the replica: %v; its log:\n%s", err, log)
	}
	return s
}

// Addr returns the Sentinel's address.
func (s *Sentinel) Addr() string { return loopback(s.port) }

// Master returns the address the Sentinel names as primary now.
func (s *Sentinel) Master() (string, error) {
	reply, err := Command(s.Addr(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MasterName)
	if err != nil {
		return "", err
	}
	return strings.ReplaceAll(reply, " ", ":"), nil
}

// WaitFailover waits until the Sentinel names a primary other than old.
func (s *Sentinel) WaitFailover(old string, timeout time.Duration) (string, error) {
	var now string
	err := waitFor(timeout, func() error {
		var err error
		if now, err = s.Master(); err != nil {
			return err
		}
		if now == old {
			return fmt.Errorf("the primary is still %s", old)
		}
		return nil
	})
	return now, err
}
