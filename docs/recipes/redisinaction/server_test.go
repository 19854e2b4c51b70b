package redisinaction_test

import (
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"go.uber.org/goleak"

	"github.com/semacat/sem/lab/devserver"
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
	return devserver.Main("redisinaction", w.m.Run, func(dir string) (func(), error) {
		srv, err := devserver.StartRedis(dir, "--appendonly", "no")
		if err != nil {
			return nil, err
		}
		addr = srv.Addr()
		return srv.Kill, nil
	})
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
