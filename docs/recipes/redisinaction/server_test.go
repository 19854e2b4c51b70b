package redisinaction_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"go.uber.org/goleak"
)

// addr is the address of the redis-server TestMain starts for the tests,
// on a free loopback port, in a temporary directory.
var addr string

func TestMain(m *testing.M) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		fmt.Fprintln(os.Stderr, "redisinaction: the tests need redis-server (make test installs it: tools/testdeps.sh)")
		os.Exit(1)
	}
	goleak.VerifyTestMain(withServer{m})
}

type withServer struct{ m *testing.M }

func (w withServer) Run() int {
	dir, err := os.MkdirTemp("", "redisinaction-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	stop, err := startRedis(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "redisinaction: starting redis-server:", err)
		return 1
	}
	defer stop()
	return w.m.Run()
}

// startRedis starts redis-server on a free loopback port, sets addr, and
// returns once the server answers.
func startRedis(dir string) (stop func(), err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop = func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	addr = "127.0.0.1:" + strconv.Itoa(port)
	rdb := redis.NewClient(options())
	defer rdb.Close()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if rdb.Ping(context.Background()).Err() == nil {
			return stop, nil
		}
	}
	stop()
	return nil, fmt.Errorf("redis-server on %s did not answer PING within 10s", addr)
}

func options() *redis.Options {
	return &redis.Options{
		Addr:                     addr,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	}
}

// newClient returns a client of the test server, closed when t ends.
func newClient(t *testing.T) *redis.Client {
	rdb := redis.NewClient(options())
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}
