package redissem_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"go.uber.org/goleak"
)

// The tests run against a real redis-server that they start themselves on a
// free loopback port, in a temporary directory. Without redis-server they
// fail loudly; SEMACAT_SKIP_REDIS=1 skips them on purpose.
const skipEnv = "SEMACAT_SKIP_REDIS"

// shared is the server most tests use; tests that kill a server start their
// own.
var shared *redisServer

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
	dir, err := os.MkdirTemp("", "redissem-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	shared, err = startRedis(dir, false)
	if err != nil {
		fmt.Fprintln(os.Stderr, "redissem: starting redis-server:", err)
		return 1
	}
	defer shared.kill()
	return sm.m.Run()
}

// redisServer is a redis-server process the tests own.
type redisServer struct {
	dir     string
	port    int
	persist bool
	extra   []string // more redis-server arguments
	cmd     *exec.Cmd
}

// startRedis starts redis-server on a free loopback port and waits until it
// answers PING. With persist, every write is appended to an fsynced AOF in
// dir, so that a restart keeps the data.
func startRedis(dir string, persist bool, extra ...string) (*redisServer, error) {
	var lastErr error
	for range 5 {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		srv := &redisServer{dir: dir, port: port, persist: persist, extra: extra}
		if lastErr = srv.start(); lastErr == nil {
			return srv, nil
		}
	}
	return nil, lastErr
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (r *redisServer) addr() string { return "127.0.0.1:" + strconv.Itoa(r.port) }

func (r *redisServer) start() error {
	args := []string{"--port", strconv.Itoa(r.port), "--bind", "127.0.0.1", "--save", "",
		"--daemonize", "no", "--dir", r.dir, "--logfile", filepath.Join(r.dir, "redis-"+strconv.Itoa(r.port)+".log")}
	if r.persist {
		args = append(args, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		args = append(args, "--appendonly", "no")
	}
	args = append(args, r.extra...)
	r.cmd = exec.Command("redis-server", args...)
	if err := r.cmd.Start(); err != nil {
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if ping(r.addr()) == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.kill()
	log, _ := os.ReadFile(filepath.Join(r.dir, "redis-"+strconv.Itoa(r.port)+".log"))
	return fmt.Errorf("redis-server on port %d did not answer PING within 10s; its log:\n%s", r.port, log)
}

// ping sends PING over a raw connection, so that no client goroutine is
// involved.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// kill stops the server with SIGKILL, as a crash would.
func (r *redisServer) kill() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGKILL)
	_ = r.cmd.Wait()
	r.cmd = nil
}

// newClient returns a client of r, closed when t ends.
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
