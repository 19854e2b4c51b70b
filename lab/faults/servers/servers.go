// Package servers starts the real servers of the fault-injection runs, each
// as its own OS process on loopback ports, with its data in the test's
// temporary directory, so that a fault is a signal to a process and a
// restart is a new process reading what the old one left on disk: a
// 3-member etcd cluster, redis-server with RDB snapshots, and a primary,
// a replica and a redis-sentinel.
//
// The etcd members are the test binary itself re-executed in member mode
// (see [MemberMain]), running the same embedded etcd server version that
// etcdsem is tested against.
package servers

import (
	"fmt"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/semacat/sem/lab/devserver"
)

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	port, err := devserver.FreePort()
	if err != nil {
		t.Fatalf("servers: finding a free port: %v", err)
	}
	return port
}

// requireProgram fails t unless program is on PATH, and names the Debian
// package that installs it.
func requireProgram(t testing.TB, program, debianPackage string) {
	t.Helper()
	if _, err := exec.LookPath(program); err != nil {
		t.Fatalf("servers: %s is not installed (Debian: apt-get install %s): %v", program, debianPackage, err)
	}
}

func loopback(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }

// waitFor polls ok until it returns nil or timeout passes, and returns its
// last error then.
func waitFor(timeout time.Duration, ok func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := ok()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not within %v: %w", timeout, err)
		}
		time.Sleep(20 * time.Millisecond) // polling another process: nothing to wait on
	}
}
