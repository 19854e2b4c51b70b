package devserver

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// forker is a launcher that forks its command and waits for it, as
// faketime does; it prints the forked process's pid.
var forker = []string{"/bin/sh", "-c", `sleep 300 & echo $!; wait`}

// startForker starts forker with Start and returns the pid of the process
// it forked.
func startForker(t *testing.T) (*exec.Cmd, int) {
	t.Helper()
	cmd := exec.Command(forker[0], forker[1:]...)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, Start(cmd))
	t.Cleanup(func() { Kill(cmd) })
	return cmd, readPid(t, out)
}

func readPid(t *testing.T, out interface{ Read([]byte) (int, error) }) int {
	t.Helper()
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	require.NoError(t, err)
	return pid
}

// gone waits up to 5s for the process pid to be gone (or a zombie, which
// runs nothing), polling: it is another process, with nothing to wait on.
func gone(pid int) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if errors.Is(err, os.ErrNotExist) {
			return true
		}
		if fields := strings.Fields(string(stat)); len(fields) > 2 && fields[2] == "Z" {
			return true
		}
	}
	return false
}

// Kill ends what the process forked, not only the process.
func TestKillEndsWhatTheProcessForked(t *testing.T) {
	cmd, child := startForker(t)
	Kill(cmd)
	if !gone(child) {
		_ = syscall.Kill(child, syscall.SIGKILL)
		t.Fatalf("the process %d that the killed launcher forked still runs", child)
	}
}

// roleEnv makes the test binary, re-executed, play a test binary that
// starts a forking launcher and is then killed.
const roleEnv = "DEVSERVER_TEST_ROLE"

// TestHelperStarter is the re-executed binary: it starts forker with
// Start, and once Start has returned prints the pid of what forker forked,
// then waits to be killed.
func TestHelperStarter(t *testing.T) {
	if os.Getenv(roleEnv) != "starter" {
		t.Skip("runs only as the process TestKilledBinaryLeavesNothing starts")
	}
	cmd := exec.Command(forker[0], forker[1:]...)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, Start(cmd))
	fmt.Println(readPid(t, out))
	select {} // until the parent kills this process
}

// A test binary killed with SIGKILL, which runs no cleanup, leaves neither
// its child nor what the child forked: Pdeathsig ends the child, the guard
// the child's group.
func TestKilledBinaryLeavesNothing(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	bin := exec.Command(exe, "-test.run=^TestHelperStarter$", "-test.count=1")
	bin.Env = append(os.Environ(), roleEnv+"=starter")
	out, err := bin.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, Start(bin))
	t.Cleanup(func() { Kill(bin) })
	child := readPid(t, out)

	require.NoError(t, bin.Process.Signal(syscall.SIGKILL))
	_ = bin.Wait()
	if !gone(child) {
		_ = syscall.Kill(child, syscall.SIGKILL)
		t.Fatalf("the process %d forked by the killed binary's child still runs", child)
	}
}
