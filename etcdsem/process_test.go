package etcdsem_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/semacat/sem/etcdsem"
)

// The multi-process tests re-execute the test binary as worker processes
// (TestHelperProcess), which learn what to do from these variables.
const (
	workerEnv    = "ETCDSEM_TEST_WORKER" // the worker's role: "load" or "hold"
	endpointsEnv = "ETCDSEM_TEST_ENDPOINTS"
	nameEnv      = "ETCDSEM_TEST_NAME"
	sizeEnv      = "ETCDSEM_TEST_SIZE"
	opsEnv       = "ETCDSEM_TEST_OPS"
	logEnv       = "ETCDSEM_TEST_LOG"
)

const workerTTL = 2 * time.Second

// startWorker starts the test binary as a worker process with the given
// role on the semaphore name of the given size.
func startWorker(t *testing.T, role, name string, size int64, extra ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(),
		workerEnv+"="+role,
		endpointsEnv+"="+strings.Join(server.Endpoints, ","),
		nameEnv+"="+name,
		sizeEnv+"="+strconv.FormatInt(size, 10))
	cmd.Env = append(cmd.Env, extra...)
	cmd.Stderr = os.Stderr
	dieWithParent(cmd) // a "hold" worker would otherwise wait forever
	return cmd
}

// TestHelperProcess is the worker process of the multi-process tests; it
// does nothing in a normal test run.
func TestHelperProcess(t *testing.T) {
	role := os.Getenv(workerEnv)
	if role == "" {
		t.Skip("runs only as a worker process started by the multi-process tests")
	}
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   strings.Split(os.Getenv(endpointsEnv), ","),
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
	require.NoError(t, err)
	defer c.Close()
	size, err := strconv.ParseInt(os.Getenv(sizeEnv), 10, 64)
	require.NoError(t, err)
	s, err := etcdsem.New(context.Background(), c, os.Getenv(nameEnv), size,
		etcdsem.WithLease(workerTTL), etcdsem.WithOwner(fmt.Sprintf("pid %d", os.Getpid())))
	require.NoError(t, err)
	defer s.Close()
	switch role {
	case "load":
		load(t, s)
	case "hold":
		require.NoError(t, s.Acquire(context.Background(), size))
		fmt.Println("holding")
		select {} // until the parent kills this process
	default:
		t.Fatalf("unknown worker role %q", role)
	}
}

// load acquires permits of random weights and holds them briefly, writing
// "+ token weight" to the shared log once it holds them and "- token
// weight" before it gives them back. Each line is one write to a file
// opened with O_APPEND, so the log's order is the order of the writes
// across processes, and the running sum of the log never exceeds what the
// semaphore truly had out at that moment.
func load(t *testing.T, s *etcdsem.Semaphore) {
	ops, err := strconv.Atoi(os.Getenv(opsEnv))
	require.NoError(t, err)
	log, err := os.OpenFile(os.Getenv(logEnv), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	defer log.Close()
	r := rand.New(rand.NewPCG(uint64(os.Getpid()), 0))
	for range ops {
		n := 1 + r.Int64N(s.Size())
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		p, err := s.AcquirePermit(ctx, n)
		cancel()
		require.NoError(t, err)
		_, err = fmt.Fprintf(log, "+ %d %d\n", p.Token(), n)
		require.NoError(t, err)
		time.Sleep(time.Duration(r.IntN(3000)) * time.Microsecond) // the protected work
		_, err = fmt.Fprintf(log, "- %d %d\n", p.Token(), n)
		require.NoError(t, err)
		require.NoError(t, p.Release(context.Background()))
	}
}

// Several processes share one semaphore under load, and the log they keep
// at a shared resource shows that never more than size permits were out.
func TestProcessesShareOneSemaphore(t *testing.T) {
	t.Parallel()
	const size, workers, ops = 3, 4, 25
	name := uniqueName(t)
	logPath := filepath.Join(t.TempDir(), "resource.log")
	require.NoError(t, os.WriteFile(logPath, nil, 0o644))
	var cmds []*exec.Cmd
	for range workers {
		cmd := startWorker(t, "load", name, size, opsEnv+"="+strconv.Itoa(ops), logEnv+"="+logPath)
		require.NoError(t, cmd.Start())
		cmds = append(cmds, cmd)
	}
	for i, cmd := range cmds {
		assert.NoError(t, cmd.Wait(), "worker %d", i)
	}

	data, err := os.ReadFile(logPath)
	require.NoError(t, err)
	var out, most int64
	open := map[int64]int64{} // token -> weight
	seen := map[int64]bool{}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var op string
		var token, n int64
		_, err := fmt.Sscanf(line, "%s %d %d", &op, &token, &n)
		require.NoError(t, err, "log line %d: %q", i+1, line)
		switch op {
		case "+":
			require.False(t, seen[token], "token %d granted twice", token)
			seen[token], open[token] = true, n
			out += n
		case "-":
			require.Equal(t, open[token], n, "log line %d: release of token %d", i+1, token)
			delete(open, token)
			out -= n
		}
		require.LessOrEqual(t, out, int64(size), "log line %d: %d permits out on a semaphore of size %d", i+1, out, size)
		most = max(most, out)
	}
	assert.Len(t, seen, workers*ops, "acquisitions logged")
	assert.Empty(t, open, "acquisitions never released")
	assert.GreaterOrEqual(t, most, int64(2), "the workers never overlapped; the test proved nothing")

	assert.Equal(t, int64(size), availableOf(t, name, size), "permits still out after every worker exited")
}

// availableOf reads the free permits of the semaphore name.
func availableOf(t *testing.T, name string, size int64) int64 {
	t.Helper()
	s, err := etcdsem.New(context.Background(), cli, name, size)
	require.NoError(t, err)
	defer s.Close()
	return available(t, s)
}

// A holder killed with SIGKILL gives nothing back itself; its lease
// expires and its permits go to the waiter.
func TestKilledHolderPermitsReturn(t *testing.T) {
	t.Parallel()
	const size = 2
	name := uniqueName(t)
	cmd := startWorker(t, "hold", name, size)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "holding\n", line)

	s, err := etcdsem.New(context.Background(), cli, name, size)
	require.NoError(t, err)
	defer s.Close()
	require.False(t, s.TryAcquire(1), "the worker holds every permit")
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		done <- s.Acquire(ctx, size)
	}()
	settleHandles(s)
	select {
	case err := <-done:
		t.Fatalf("Acquire returned %v while the holder was alive", err)
	default:
	}

	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	killed := time.Now()
	require.NoError(t, await(t, done))
	waited := time.Since(killed)
	t.Logf("the waiter held the permits %v after the holder was killed (lease TTL %v)", waited.Round(time.Millisecond), workerTTL)
	// etcd's lessor checks for expired leases every 500ms and revokes them
	// through raft: allow that on top of the TTL.
	assert.Less(t, waited, workerTTL+2*time.Second, "permits came back later than the lease TTL allows")
	s.Release(size)
}
