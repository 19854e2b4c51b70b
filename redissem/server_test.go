package redissem_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"go.uber.org/goleak"

	"github.com/semacat/sem/internal/testserver"
)

// The tests run against a real redis-server that they start themselves on a
// free loopback port, in a temporary directory. Without redis-server they
// fail loudly; SEMACAT_SKIP_REDIS=1 skips them on purpose.
const skipEnv = "SEMACAT_SKIP_REDIS"

// shared is the server most tests use; tests that kill a server start their
// own.
var shared *testserver.Redis

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		os.Exit(runChild(role))
	}
	if os.Getenv(skipEnv) == "1" {
		fmt.Fprintf(os.Stderr, "\n!!! redissem: %s=1, SKIPPING every redissem test: nothing was tested !!!\n\n", skipEnv)
		os.Exit(0)
	}
	if _, err := exec.LookPath("redis-server"); err != nil {
		fmt.Fprintf(os.Stderr, "\n!!! redissem: the tests need redis-server, which is not installed.\n"+
			"!!! Install it (Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis),\n"+
			"!!! or set %s=1 to skip these tests on purpose.\n\n", skipEnv)
		os.Exit(1)
	}
	// The tests kill servers on purpose; go-redis would log every failed
	// dial. The tests check the errors that reach callers instead.
	redis.SetLogger(quietLogger{})
	goleak.VerifyTestMain(serverMain{m})
}

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// serverMain runs the tests around the shared server, so that goleak checks
// for leaks after everything, the server included, has stopped.
type serverMain struct{ m *testing.M }

func (sm serverMain) Run() int {
	return testserver.Main("redissem-test", sm.m.Run, func(dir string) (func(), error) {
		var err error
		shared, err = startRedis(dir, false)
		if err != nil {
			return nil, err
		}
		return shared.Kill, nil
	})
}

// startRedis starts redis-server on a free loopback port and waits until it
// answers PING. With persist, every write is appended to an fsynced AOF in
// dir, so that a restart keeps the data.
func startRedis(dir string, persist bool, extra ...string) (*testserver.Redis, error) {
	aof := []string{"--appendonly", "no"}
	if persist {
		aof = []string{"--appendonly", "yes", "--appendfsync", "always"}
	}
	return testserver.StartRedis(dir, append(aof, extra...)...)
}

// newClient returns a client of the server at addr, closed when t ends.
func newClient(t testing.TB, addr string, hooks ...redis.Hook) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(clientOptions(addr))
	for _, h := range hooks {
		rdb.AddHook(h)
	}
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

func clientOptions(addr string) *redis.Options {
	return &redis.Options{
		Addr:                     addr,
		DialTimeout:              time.Second,
		ReadTimeout:              2 * time.Second,
		WriteTimeout:             2 * time.Second,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	}
}

var names atomic.Int64

// uniqueName returns a semaphore name no other test in this run uses.
func uniqueName(t testing.TB) string {
	return fmt.Sprintf("%s-%d-%d", t.Name(), os.Getpid(), names.Add(1))
}
