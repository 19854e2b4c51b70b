package redissem_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// The tests run against a real redis-server that they start themselves on a
// free loopback port, in a temporary directory. Without redis-server they
// fail loudly; SEMACAT_SKIP_SERVERS=1 skips them on purpose.
const skipEnv = "SEMACAT_SKIP_SERVERS"

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
		fmt.Fprintf(os.Stderr, "\n!!! redissem: the tests need redis-server, which is not on PATH.\n"+
			"!!! Run `make testdeps` from the repository's root, or install it (Debian/Ubuntu:\n"+
			"!!! apt-get install -y redis-server; macOS: brew install redis),\n"+
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
		fmt.Fprintf(os.Stderr, "redissem: making the server's directory: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	shared, err = startRedis(dir, false)
	if err != nil {
		fmt.Fprintf(os.Stderr, "redissem: starting the test server: %v\n", err)
		return 1
	}
	defer shared.Kill()
	// The examples dial REDIS_ADDR, so that they run as they are shown.
	if err := os.Setenv("REDIS_ADDR", shared.Addr()); err != nil {
		fmt.Fprintf(os.Stderr, "redissem: %v\n", err)
		return 1
	}
	return sm.m.Run()
}

// startRedis starts redis-server on a free loopback port and waits until it
// answers PING. With persist, every write is appended to an fsynced AOF in
// dir, so that a restart keeps the data.
func startRedis(dir string, persist bool, extra ...string) (*redisServer, error) {
	aof := []string{"--appendonly", "no"}
	if persist {
		aof = []string{"--appendonly", "yes", "--appendfsync", "always"}
	}
	return launchRedis(redisServer{dir: dir, args: append(aof, extra...)})
}

// launchRedis starts the server described by proto on a free port.
func launchRedis(proto redisServer) (*redisServer, error) {
	var err error
	for range 5 { // a port taken meanwhile by someone else costs a retry
		port, perr := freePort()
		if perr != nil {
			return nil, perr
		}
		r := proto
		r.Port = port
		if err = r.Restart(); err == nil {
			return &r, nil
		}
	}
	return nil, err
}

// redisServer is a redis-server process the test binary owns, on a loopback
// port, with no RDB snapshots and its log in its directory.
type redisServer struct {
	Port int
	dir  string
	args []string
	// launch, when set, is the command that runs redis-server with args,
	// and env what it adds to the environment (see startLaggingRedis).
	launch []string
	env    []string
	cmd    *exec.Cmd
}

func (r *redisServer) Addr() string { return "127.0.0.1:" + strconv.Itoa(r.Port) }

// Restart starts the server, after a Kill, again on its port, and returns
// once it answers PING.
func (r *redisServer) Restart() error {
	logfile := filepath.Join(r.dir, "redis-"+strconv.Itoa(r.Port)+".log")
	args := append([]string{"--port", strconv.Itoa(r.Port), "--bind", "127.0.0.1", "--save", "",
		"--daemonize", "no", "--dir", r.dir, "--logfile", logfile, "--enable-debug-command", "local"}, r.args...)
	argv := append(append(slices.Clone(r.launch), "redis-server"), args...)
	r.cmd = exec.Command(argv[0], argv[1:]...)
	r.cmd.Env = append(os.Environ(), r.env...)
	dieWithTest(r.cmd)
	if err := r.cmd.Start(); err != nil {
		return err
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ping(r.Addr()) == nil {
			return r.ours(logfile)
		}
	}
	r.Kill()
	log, _ := os.ReadFile(logfile)
	return fmt.Errorf("redis-server on port %d did not answer PING within 10s; its log:\n%s", r.Port, log)
}

// ours checks that the server answering on r's port logs to logfile, so
// is the one r started, and kills r's process if not: a port free a moment
// ago can go to another test's server, which then answers PING while r's
// fails to bind (lab/faults saw two clusters take each other's nodes).
func (r *redisServer) ours(logfile string) error {
	got, err := configGet(r.Addr(), "logfile")
	if err == nil && got != logfile {
		err = fmt.Errorf("the server on port %d logs to %q, not to %q: another one took the port", r.Port, got, logfile)
	}
	if err != nil {
		r.Kill()
	}
	return err
}

// configGet returns a configuration parameter of the server at addr, over
// a raw connection as ping does.
func configGet(addr, param string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := fmt.Fprintf(c, "*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$%d\r\n%s\r\n", len(param), param); err != nil {
		return "", err
	}
	rd := bufio.NewReader(c)
	var lines []string // *2, $len, param, $len, value
	for range 5 {
		line, err := rd.ReadString('\n')
		if err != nil {
			return "", err
		}
		lines = append(lines, strings.TrimRight(line, "\r\n"))
	}
	if lines[0] != "*2" || lines[2] != param {
		return "", fmt.Errorf("CONFIG GET %s answered %q", param, lines)
	}
	return lines[4], nil
}

// Kill stops the server with SIGKILL, as a crash would, and waits for it.
func (r *redisServer) Kill() {
	if r.cmd != nil {
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
		r.cmd = nil
	}
}

// ping sends PING over a raw connection, so that no client goroutine is
// involved, and fails unless PONG comes back within a second.
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
	if err == nil && !strings.HasPrefix(line, "+PONG") {
		err = fmt.Errorf("PING answered %q", line)
	}
	return err
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

// A test server started on a port that another took in the meantime fails
// and leaves no process behind, rather than taking the other for its own.
func TestServerPortTaken(t *testing.T) {
	t.Parallel()
	late := &redisServer{Port: shared.Port, dir: t.TempDir()}
	require.ErrorContains(t, late.Restart(), "another one took the port")
	assert.Nil(t, late.cmd, "the server that lost the port was left running")
	require.NoError(t, ping(shared.Addr()), "the check disturbed the shared server")
}
