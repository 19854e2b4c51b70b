package servers

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Redis is a redis-server process that snapshots its data to an RDB file
// in its directory every second that saw a write, and reads it back when
// restarted. Writes since the last snapshot are lost by a kill, as in a
// production RDB setup.
type Redis struct {
	t    testing.TB
	dir  string
	port int
	args []string
	cmd  *exec.Cmd
}

// StartRedis starts redis-server on a free loopback port with its data in
// dir, with extra arguments appended; it is killed when t ends.
func StartRedis(t testing.TB, dir string, extra ...string) *Redis {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("servers: redis-server is not installed (Debian: apt-get install redis-server): %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("servers: %v", err)
	}
	r := &Redis{t: t, dir: dir, port: freePort(t)}
	r.args = append([]string{"--port", strconv.Itoa(r.port), "--bind", "127.0.0.1", "--dir", dir,
		"--save", "1 1", "--appendonly", "no", "--dbfilename", "dump.rdb",
		"--logfile", filepath.Join(dir, "redis.log"), "--daemonize", "no"}, extra...)
	t.Cleanup(r.Kill)
	r.Restart()
	return r
}

// Addr returns the server's address.
func (r *Redis) Addr() string { return loopback(r.port) }

// Kill sends SIGKILL to the server.
func (r *Redis) Kill() {
	kill(r.cmd)
	r.cmd = nil
}

// Restart starts the server again on its port, from its RDB file, and waits
// until it answers PING.
func (r *Redis) Restart() {
	r.t.Helper()
	r.cmd = exec.Command("redis-server", r.args...)
	DieWithParent(r.cmd)
	if err := r.cmd.Start(); err != nil {
		r.t.Fatalf("servers: starting redis-server: %v", err)
	}
	if err := waitFor(10*time.Second, func() error { return expect(r.Addr(), "PONG", "PING") }); err != nil {
		log, _ := os.ReadFile(filepath.Join(r.dir, "redis.log"))
		r.t.Fatalf("servers: redis-server on %s: %v; its log:\n%s", r.Addr(), err, log)
	}
}

// expect sends one command and fails unless the reply contains want.
func expect(addr, want string, args ...string) error {
	reply, err := Command(addr, args...)
	if err != nil {
		return err
	}
	if !strings.Contains(reply, want) {
		return fmt.Errorf("%s answered %q, want %q", strings.Join(args, " "), reply, want)
	}
	return nil
}

// Command sends one command to the Redis (or Sentinel) server at addr over
// a fresh connection and returns its reply as text: a status, an error, an
// integer or a bulk string as is, an array as its elements joined by
// spaces. It needs no client library, so it leaves no goroutine behind.
func Command(addr string, args ...string) (string, error) {
	return commandWithin(addr, 2*time.Second, args...)
}

// Stall makes the Redis server at addr stop answering for d (DEBUG SLEEP;
// the server needs --enable-debug-command) and returns when it answers
// again. Commands that arrive meanwhile wait, and run after it.
func Stall(addr string, d time.Duration) error {
	_, err := commandWithin(addr, d+2*time.Second, "DEBUG", "SLEEP", strconv.FormatFloat(d.Seconds(), 'f', 3, 64))
	return err
}

func commandWithin(addr string, timeout time.Duration, args ...string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return "", err
	}
	return readReply(bufio.NewReader(c))
}

func readReply(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", fmt.Errorf("empty reply")
	}
	switch line[0] {
	case '+', ':':
		return line[1:], nil
	case '-':
		return "", fmt.Errorf("redis: %s", line[1:])
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "", nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	case '*':
		n, _ := strconv.Atoi(line[1:])
		var parts []string
		for range n {
			p, err := readReply(r)
			if err != nil {
				return "", err
			}
			parts = append(parts, p)
		}
		return strings.Join(parts, " "), nil
	}
	return "", fmt.Errorf("unexpected reply %q", line)
}
