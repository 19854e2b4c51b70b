// Package devserver runs the servers that the development code of the
// distributed strategies talks to (the recipes, the demos, the
// fault-injection runs): a test binary's lifetime around a server (Main,
// Linger), redis-server processes on free loopback ports (StartRedis,
// StartRedisUnder), the processes a test starts, which end with the test
// binary however it ends (Start, Kill), and the handles a test
// opens on them (Handles). Its subpackage etcd runs etcd clusters inside
// the process, and its command cmd/etcd is an etcd server for tests that
// need one as a separate process.
//
// It lives in a module of its own that is never published, so that the etcd
// server and its dependencies stay out of the published modules' graphs.
// The package devserver itself imports only the standard library.
package devserver

import (
	"fmt"
	"net"
	"os"
	"time"
)

// Main runs a test binary's tests around a server. It makes a temporary
// directory named after name, calls start with it, runs tests, then stops
// the server and removes the directory. It returns the tests' exit code, or
// 1 after saying why on stderr when the directory or the server could not be
// made. Call it from a TestMain's Run, inside goleak.VerifyTestMain, so that
// goleak looks for leaks once the server has stopped.
func Main(name string, tests func() int, start func(dir string) (stop func(), err error)) int {
	dir, err := os.MkdirTemp("", name+"-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: making the server's directory: %v\n", name, err)
		return 1
	}
	defer os.RemoveAll(dir)
	stop, err := start(dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: starting the test server: %v\n", name, err)
		return 1
	}
	defer stop()
	return tests()
}

// Linger gives goroutines that outlive a stopped server up to d to end, so
// that a leak check run next sees only real leaks: it returns as soon as
// quiet (typically a call of goleak.Find that found nothing) reports true,
// or once d has passed.
func Linger(d time.Duration, quiet func() bool) {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); {
		if quiet() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
