package redissem_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/redissem"
)

// The test binary re-executes itself as a child process with childEnv set
// to a role; TestMain then runs runChild instead of the tests.
const childEnv = "REDISSEM_TEST_CHILD"

// Settings passed to children.
const (
	envAddr     = "REDISSEM_ADDR"
	envName     = "REDISSEM_NAME"
	envSize     = "REDISSEM_SIZE"
	envN        = "REDISSEM_N"
	envLease    = "REDISSEM_LEASE"
	envResource = "REDISSEM_RESOURCE"
	envWorkers  = "REDISSEM_WORKERS"
	envOps      = "REDISSEM_OPS"
)

func runChild(role string) int {
	size, _ := strconv.ParseInt(os.Getenv(envSize), 10, 64)
	lease, _ := time.ParseDuration(os.Getenv(envLease))
	rdb := redis.NewClient(clientOptions(os.Getenv(envAddr)))
	defer rdb.Close()
	s, err := redissem.New(context.Background(), rdb, os.Getenv(envName), size, redissem.WithLease(lease))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	n, _ := strconv.ParseInt(os.Getenv(envN), 10, 64)
	switch role {
	case "worker":
		return childWorker(s, size)
	case "holder":
		// Take n permits, say so, and wait to be killed.
		p, err := s.AcquirePermit(context.Background(), n)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("HOLDING %d\n", p.Token())
		select {}
	case "waiter":
		// Wait for n permits until killed.
		err := s.Acquire(context.Background(), n)
		fmt.Fprintln(os.Stderr, "waiter returned:", err)
		return 1
	}
	fmt.Fprintln(os.Stderr, "unknown role", role)
	return 2
}

// childWorker runs goroutines that take 1 or 2 permits, report the grant to
// the shared resource, hold it briefly, report the end, and release.
func childWorker(s *redissem.Semaphore, size int64) int {
	workers, _ := strconv.Atoi(os.Getenv(envWorkers))
	ops, _ := strconv.Atoi(os.Getenv(envOps))
	var wg sync.WaitGroup
	failed := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := dialResource(os.Getenv(envResource))
			if err != nil {
				failed <- err
				return
			}
			defer res.close()
			r := rand.New(rand.NewPCG(uint64(os.Getpid()), uint64(w)))
			for range ops {
				n := 1 + r.Int64N(min(2, size))
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				p, err := s.AcquirePermit(ctx, n)
				cancel()
				if err != nil {
					failed <- err
					return
				}
				if err := res.enter(p.Token(), n); err != nil {
					failed <- err
					return
				}
				time.Sleep(time.Duration(r.IntN(3000)) * time.Microsecond)
				if err := res.exit(p.Token()); err != nil {
					failed <- err
					return
				}
				if err := p.Release(context.Background()); err != nil {
					failed <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(failed)
	for err := range failed {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	return 0
}

// resource stands for what the semaphore protects. Holders tell it when
// they start and stop using it, with their fencing token; it checks,
// independently of Redis, that tokens are never granted twice and that the
// weights in use never exceed the size. Every message is acknowledged, so
// a holder's "exit" is counted before its release can admit anyone else.
type resource struct {
	size int64

	mu         sync.Mutex
	inUse      int64
	maxInUse   int64
	entries    int
	active     map[int64]int64 // token -> weight
	seen       map[int64]bool
	violations []string
}

func newResource(size int64) *resource {
	return &resource{size: size, active: make(map[int64]int64), seen: make(map[int64]bool)}
}

func (r *resource) enter(tok, n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen[tok] {
		r.violations = append(r.violations, fmt.Sprintf("token %d granted twice", tok))
	}
	r.seen[tok] = true
	r.active[tok] = n
	r.inUse += n
	r.entries++
	r.maxInUse = max(r.maxInUse, r.inUse)
	if r.inUse > r.size {
		r.violations = append(r.violations, fmt.Sprintf("%d permits in use at once on a semaphore of size %d (tokens %v)", r.inUse, r.size, r.active))
	}
}

func (r *resource) exit(tok int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inUse -= r.active[tok]
	delete(r.active, tok)
}

func (r *resource) report() (entries int, maxInUse int64, violations []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.entries, r.maxInUse, append([]string(nil), r.violations...)
}

// serve accepts holders' connections on a loopback port until l is closed.
func (r *resource) serve(l net.Listener, wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			sc := bufio.NewScanner(c)
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				tok, _ := strconv.ParseInt(f[1], 10, 64)
				if f[0] == "enter" {
					n, _ := strconv.ParseInt(f[2], 10, 64)
					r.enter(tok, n)
				} else {
					r.exit(tok)
				}
				if _, err := c.Write([]byte("ok\n")); err != nil {
					return
				}
			}
		}()
	}
}

// resourceConn is a holder's connection to the resource.
type resourceConn struct {
	c  net.Conn
	rd *bufio.Reader
}

func dialResource(addr string) (*resourceConn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &resourceConn{c: c, rd: bufio.NewReader(c)}, nil
}

func (rc *resourceConn) call(msg string) error {
	if _, err := rc.c.Write([]byte(msg + "\n")); err != nil {
		return err
	}
	_, err := rc.rd.ReadString('\n')
	return err
}

func (rc *resourceConn) enter(tok, n int64) error { return rc.call(fmt.Sprintf("enter %d %d", tok, n)) }
func (rc *resourceConn) exit(tok int64) error     { return rc.call(fmt.Sprintf("exit %d", tok)) }
func (rc *resourceConn) close()                   { _ = rc.c.Close() }

// child starts the test binary in a role.
func child(t *testing.T, role string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), childEnv+"="+role), env...)
	cmd.Stderr = os.Stderr
	return cmd
}

func TestProcessesShareOneSemaphore(t *testing.T) {
	t.Parallel()
	const size, procs, workers, ops = 3, 3, 3, 40
	res := newResource(size)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	wg.Add(1)
	go res.serve(l, &wg)
	defer wg.Wait()
	defer l.Close()

	name := uniqueName(t)
	var cmds []*exec.Cmd
	for range procs {
		cmd := child(t, "worker", envAddr+"="+shared.Addr(), envName+"="+name, envSize+"="+strconv.Itoa(size),
			envLease+"=2s", envResource+"="+l.Addr().String(),
			envWorkers+"="+strconv.Itoa(workers), envOps+"="+strconv.Itoa(ops))
		require.NoError(t, cmd.Start())
		cmds = append(cmds, cmd)
	}
	for i, cmd := range cmds {
		assert.NoError(t, cmd.Wait(), "worker process %d", i)
	}
	entries, maxInUse, violations := res.report()
	assert.Empty(t, violations)
	assert.Equal(t, procs*workers*ops, entries, "every operation reached the resource")
	assert.Equal(t, int64(size), maxInUse, "the load filled the semaphore")
	t.Logf("%d grants across %d processes; at most %d permits in use at once (size %d)", entries, procs, maxInUse, size)

	rdb := newClient(t, shared.Addr())
	check, err := redissem.New(context.Background(), rdb, name, size)
	require.NoError(t, err)
	defer check.Close()
	assert.Equal(t, int64(size), available(t, check), "every permit is back")
}

// A holder killed with SIGKILL never releases: its permits come back when
// its lease expires. A waiter killed while queued at the head stops
// refreshing its entry, which expires too, and the waiter behind it is
// served. The dead waiter wants 2 while the test holds 1 of the 2 permits,
// so it could never be served and only the expiry of its entry unblocks the
// queue.
func TestKilledHolderAndWaiter(t *testing.T) {
	t.Parallel()
	const lease = 1500 * time.Millisecond
	rdb := newClient(t, shared.Addr())
	s := newSem(t, rdb, 2, redissem.WithLease(lease))
	require.True(t, s.TryAcquire(1))
	env := []string{envAddr + "=" + shared.Addr(), envName + "=" + s.Name(), envSize + "=2", envLease + "=" + lease.String()}

	holder := child(t, "holder", append(env, envN+"=1")...)
	out, err := holder.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, holder.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, "the holder process did not report its grant")
	require.True(t, strings.HasPrefix(line, "HOLDING"), line)

	waiter := child(t, "waiter", append(env, envN+"=2")...)
	require.NoError(t, waiter.Start())
	queue := "redissem:{" + s.Name() + "}:queue"
	waitFor(t, "the waiter process to queue", func() bool { return rdb.ZCard(context.Background(), queue).Val() == 1 })

	done := make(chan time.Time, 1)
	go func() {
		assert.NoError(t, s.Acquire(context.Background(), 1))
		done <- time.Now()
	}()
	waitFor(t, "this test's Acquire(1) to queue", func() bool { return rdb.ZCard(context.Background(), queue).Val() == 2 })

	for _, p := range []*exec.Cmd{holder, waiter} {
		require.NoError(t, p.Process.Signal(syscall.SIGKILL))
		_ = p.Wait()
	}
	killed := time.Now()
	select {
	case at := <-done:
		waited := at.Sub(killed)
		t.Logf("served %v after the kills (lease %v)", waited.Round(time.Millisecond), lease)
		assert.Greater(t, waited, lease/3, "served before the dead processes' leases could have expired")
	case <-time.After(2*lease + 2*time.Second):
		t.Fatalf("the Acquire(1) behind a killed holder and a killed waiter was not served within %v", 2*lease+2*time.Second)
	}
	assert.Equal(t, int64(0), available(t, s))
	s.Release(2)
	assert.Equal(t, int64(2), available(t, s))
}

// waitFor polls cond every 10ms for up to 10s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}
