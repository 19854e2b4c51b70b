package servers

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/semacat/sem/lab/devserver"
)

// Redis is a redis-server process that snapshots its data to an RDB file
// in its directory every second that saw a write, and reads it back when
// restarted. Writes since the last snapshot are lost by a kill, as in a
// production RDB setup.
type Redis struct {
	t   testing.TB
	srv *devserver.Redis
}

// StartRedis starts redis-server on a free loopback port with its data in
// dir, with extra arguments appended; it is killed when t ends.
func StartRedis(t testing.TB, dir string, extra ...string) *Redis {
	t.Helper()
	requireProgram(t, "redis-server", "redis-server")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("servers: %v", err)
	}
	// devserver turns snapshots off; a later --save turns them on again.
	rdb := []string{"--save", "1 1", "--appendonly", "no", "--dbfilename", "dump.rdb"}
	srv, err := devserver.StartRedis(dir, append(rdb, extra...)...)
	if err != nil {
		t.Fatalf("servers: %v", err)
	}
	r := &Redis{t: t, srv: srv}
	t.Cleanup(r.Kill)
	return r
}

// Addr returns the server's address.
func (r *Redis) Addr() string { return r.srv.Addr() }

// Kill sends SIGKILL to the server.
func (r *Redis) Kill() { r.srv.Kill() }

// Stop stalls the server with SIGSTOP, as a machine that hangs would:
// connections stay open, and nothing is answered until Cont.
func (r *Redis) Stop() error { return r.srv.Signal(syscall.SIGSTOP) }

// Cont resumes a stopped server.
func (r *Redis) Cont() error { return r.srv.Signal(syscall.SIGCONT) }

// Restart starts the server again on its port, from its RDB file, and waits
// until it answers PING.
func (r *Redis) Restart() {
	r.t.Helper()
	if err := r.srv.Restart(); err != nil {
		r.t.Fatalf("servers: %v", err)
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
