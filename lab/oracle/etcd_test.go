package oracle

// A grant that meets a cancellation, in the distributed strategies.
//
// The local strategies once gave a grant back with Release(n) when the
// waiter saw its context done after the grant: by then another caller may
// have released those permits, legally, and the give-back panicked. Neither
// distributed strategy has that path, because neither counts a grant as
// the caller's before it has looked at the context one last time, and
// neither gives one back by count:
//
//   - etcdsem: a waiter's key holds on the server once the keys ahead
//     leave (wait, confirm), but the handle adds it to its permits only in
//     admit, under the handle's mutex, after checking ctx. If ctx is done
//     by then, acquire calls drop, which deletes that one key by its name.
//     Until admit the handle's count (heldSum) does not include the key, so
//     no Release of this handle can give it back first (a Release beyond
//     the count panics before changing anything), and other handles
//     release only their own keys. Once admitted, nothing looks at ctx
//     again: the grant is final.
//   - redissem: granted checks ctx before hold records the grant in the
//     handle's count; if ctx is done it withdraws the request by its id
//     (the update script releases that id's grant, and is silent if Redis
//     no longer knows it). A select that sees ctx done while the grant's
//     notification is in flight withdraws by id too. As with etcdsem, the
//     handle's Release cannot reach a grant that hold has not recorded, so
//     nobody can have given it back before the withdrawal.
//
// So both honour a cancellation that is seen before the grant is recorded
// by giving back exactly that grant, by its identity, and never panic on
// this path. The histories below check etcdsem's calls against the model.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/semacat/sem"
	"github.com/semacat/sem/etcdsem"
	"github.com/semacat/sem/lab/devserver"
)

// etcdEnv names the etcd server binary to run; without it, etcd on PATH.
// The Makefile sets it to the binary `make etcd` builds.
const etcdEnv = "ETCDSEM_TEST_ETCD"

// etcdHandles is the number of handles on each semaphore of an etcdsem
// history, each on a client of its own, as separate processes would have.
const etcdHandles = 2

// etcdLateCancel is the longest delay of a late cancellation in etcdsem's
// histories: a few loopback round trips, so that some cancellations land
// while an Acquire learns of its grant.
const etcdLateCancel = 10 * time.Millisecond

// etcdsem's histories, on an etcd server process of its own on loopback.
// The goroutines of a history call the semaphore through two handles, so
// that a deliberate over-release sometimes finds permits its handle holds
// (taken by another goroutine through it) and sometimes only permits of
// the other handle, which it cannot give back.
func TestEtcdSem(t *testing.T) {
	endpoint := startEtcd(t)
	clients := make([]*clientv3.Client, etcdHandles)
	for i := range clients {
		cli, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
		require.NoError(t, err)
		t.Cleanup(func() { _ = cli.Close() })
		clients[i] = cli
	}

	var mu sync.Mutex
	var reported []error
	onError := etcdsem.WithErrorHandler(func(err error) {
		mu.Lock()
		defer mu.Unlock()
		reported = append(reported, err)
	})
	handles := devserver.NewHandles[*etcdsem.Semaphore](t)
	semaphores := 0
	open := func(size int64, n int) []sem.Semaphore {
		name := fmt.Sprintf("oracle-%d", semaphores)
		semaphores++
		var hs []sem.Semaphore
		for i := range n {
			s, err := etcdsem.New(context.Background(), clients[i], name, size, onError)
			require.NoError(t, err)
			hs = append(hs, handles.Add(s))
		}
		return hs
	}

	cfg := config(t)
	cfg.Histories /= 5
	cfg.Handles = etcdHandles
	cfg.LateCancel = etcdLateCancel
	tally := CheckHandles(open, cfg)
	t.Logf("etcdsem       %s", tally)
	for _, k := range slices.Sorted(maps.Keys(tally.Outcomes)) {
		t.Logf("\t%-26s %d", k, tally.Outcomes[k])
	}
	if tally.Example != "" {
		t.Logf("first failing %s", tally.Example)
	}
	assert.Zero(t, tally.Not, "histories that are not linearizable")
	assert.Zero(t, tally.Hung, "histories whose calls never returned")
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, reported, "errors passed to the handlers")
}

// startEtcd starts a one-member etcd server as a process of its own, with
// its data and log in a temporary directory, and returns its client URL
// once it answers. The server is killed when the test ends. A port taken by
// someone else meanwhile costs a retry on others, three tries in all.
func startEtcd(t *testing.T) string {
	bin := os.Getenv(etcdEnv)
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("etcd"); err != nil {
			t.Fatalf("no etcd server binary: run `make etcd` at the root of the repository and set %s=$PWD/.bin/etcd, or put etcd on PATH (`make test` does both)", etcdEnv)
		}
	}
	var err error
	for try := range 3 {
		var endpoint string
		if endpoint, err = tryEtcd(t, bin, filepath.Join(t.TempDir(), strconv.Itoa(try))); err == nil {
			return endpoint
		}
	}
	t.Fatalf("starting %s: %v", bin, err)
	return ""
}

func tryEtcd(t *testing.T, bin, dir string) (string, error) {
	clientPort, err := devserver.FreePort()
	if err != nil {
		return "", err
	}
	peerPort, err := devserver.FreePort()
	if err != nil {
		return "", err
	}
	client := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peer := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	logPath := filepath.Join(dir, "etcd.log")
	log, err := os.Create(logPath)
	if err != nil {
		return "", err
	}
	defer log.Close()
	cmd := exec.Command(bin, "--name", "m0", "--data-dir", filepath.Join(dir, "data"),
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "m0="+peer, "--unsafe-no-fsync", "--log-level", "error")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return "", err
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	kill := func() {
		_ = cmd.Process.Kill()
		<-exited
	}
	if err := waitEtcd(client, exited); err != nil {
		kill()
		out, _ := os.ReadFile(logPath)
		return "", fmt.Errorf("%w; its log:\n%s", err, out)
	}
	t.Cleanup(kill)
	return client, nil
}

// waitEtcd waits up to 30s for the server at endpoint to answer a read,
// and fails at once if its process exits.
func waitEtcd(endpoint string, exited <-chan struct{}) error {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: time.Second, Logger: zap.NewNop()})
	if err != nil {
		return err
	}
	defer cli.Close()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err = cli.Get(ctx, "ready")
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			return errors.New("etcd exited")
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("etcd at %s did not answer within 30s: %w", endpoint, err)
}
