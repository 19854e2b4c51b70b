package devserver

import (
	"errors"
	"os"
	"os/exec"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// Main runs the tests between start and stop, in a directory that exists
// for exactly that long, and returns the tests' code.
func TestMainRunsTestsAroundServer(t *testing.T) {
	var steps []string
	var dir string
	code := Main("devserver-test", func() int {
		steps = append(steps, "tests")
		assert.DirExists(t, dir, "the server's directory is gone while the tests run")
		return 3
	}, func(d string) (func(), error) {
		dir = d
		steps = append(steps, "start")
		return func() { steps = append(steps, "stop") }, nil
	})
	assert.Equal(t, 3, code, "Main must return the tests' exit code")
	assert.Equal(t, []string{"start", "tests", "stop"}, steps)
	assert.NoDirExists(t, dir, "Main must remove the server's directory")
}

// A server that cannot start fails the binary without running the tests.
func TestMainServerFails(t *testing.T) {
	var dir string
	code := Main("devserver-test", func() int {
		t.Error("the tests ran without their server")
		return 0
	}, func(d string) (func(), error) {
		dir = d
		return nil, errors.New("no server today")
	})
	assert.Equal(t, 1, code)
	assert.NoDirExists(t, dir, "Main must remove the server's directory")
}

// Linger returns once quiet reports true, and no later than its bound when
// it never does.
func TestLinger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start, calls := time.Now(), 0
		Linger(time.Minute, func() bool { calls++; return calls == 3 })
		assert.Equal(t, 3, calls)
		assert.Less(t, time.Since(start), time.Second, "Linger went on after quiet reported true")

		start = time.Now()
		Linger(time.Minute, func() bool { return false })
		assert.GreaterOrEqual(t, time.Since(start), time.Minute, "Linger gave up before its bound")
		assert.Less(t, time.Since(start), time.Minute+time.Second, "Linger went on past its bound")
	})
}

// A Redis answers on its port until killed, and again after a restart,
// with its log in its directory; Running follows it.
func TestRedisKillRestart(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed (make test installs it: tools/testdeps.sh)")
	}
	dir := t.TempDir()
	r, err := StartRedis(dir, "--appendonly", "no")
	require.NoError(t, err)
	defer r.Kill()
	require.NoError(t, Ping(r.Addr()))
	assert.True(t, r.Running(), "a started server is not Running")
	logs, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.NotEmpty(t, logs, "redis-server wrote no log in its directory")

	r.Kill()
	require.Error(t, Ping(r.Addr()), "the server still answers after Kill")
	r.Kill() // a second Kill does nothing
	assert.False(t, r.Running(), "a killed server is still Running")

	port := r.Port
	require.NoError(t, r.Restart())
	assert.Equal(t, port, r.Port, "Restart moved the server to another port")
	require.NoError(t, Ping(r.Addr()))
	assert.True(t, r.Running(), "a restarted server is not Running")
}

// A server started on a port that another server took in the meantime
// fails to bind, and the other answers PING: Restart tells them apart by
// the log file, fails, and leaves no process of its own behind.
func TestRedisPortTaken(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed (make test installs it: tools/testdeps.sh)")
	}
	other, err := StartRedis(t.TempDir())
	require.NoError(t, err)
	defer other.Kill()
	late := &Redis{Port: other.Port, dir: t.TempDir()}
	err = late.Restart()
	require.ErrorContains(t, err, "another one took the port")
	assert.False(t, late.Running(), "the server that lost the port was left running")
	require.NoError(t, Ping(other.Addr()), "the check disturbed the server that holds the port")
}

// Kill ends a process and reaps it, and does nothing for a command that
// never started or whose process is gone.
func TestKill(t *testing.T) {
	Kill(nil)
	Kill(exec.Command("sleep", "60")) // never started
	cmd := exec.Command("sleep", "60")
	DieWithParent(cmd)
	require.NoError(t, cmd.Start())
	Kill(cmd)
	require.NotNil(t, cmd.ProcessState, "Kill did not wait for the process")
	assert.False(t, cmd.ProcessState.Success(), "the process ended on its own, not killed")
	Kill(cmd) // already gone
}
