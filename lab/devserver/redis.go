package devserver

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
	"time"
)

// Redis is a redis-server process that a test binary owns.
type Redis struct {
	// Port is the loopback port the server listens on, across restarts.
	Port int

	dir    string
	args   []string
	launch Launcher
	cmd    *exec.Cmd
}

// Launcher is a command that runs redis-server, such as faketime: Argv,
// then redis-server and its arguments, with Env added to the environment.
// A launcher may fork the server rather than exec it; the server then ends
// with the launcher's process group (see [Start]).
type Launcher struct {
	Argv []string
	Env  []string
}

// StartRedis starts redis-server on a free loopback port, with its working
// directory and log in dir, no RDB snapshots and no configuration file but
// the extra arguments, and returns once it answers PING. A port taken by
// someone else in the meantime costs a retry on another, five tries in all.
func StartRedis(dir string, extra ...string) (*Redis, error) {
	return StartRedisUnder(Launcher{}, dir, extra...)
}

// StartRedisUnder is StartRedis with the server run by launch.
func StartRedisUnder(launch Launcher, dir string, extra ...string) (*Redis, error) {
	var lastErr error
	for range 5 {
		port, err := FreePort()
		if err != nil {
			return nil, err
		}
		r := &Redis{Port: port, dir: dir, args: extra, launch: launch}
		if lastErr = r.Restart(); lastErr == nil {
			return r, nil
		}
	}
	return nil, lastErr
}

// Addr returns the server's address, host:port.
func (r *Redis) Addr() string { return "127.0.0.1:" + strconv.Itoa(r.Port) }

// Restart starts the server, after a Kill, again on its port, with its
// directory and arguments, and returns once it answers PING.
func (r *Redis) Restart() error {
	logfile := filepath.Join(r.dir, "redis-"+strconv.Itoa(r.Port)+".log")
	args := append([]string{"--port", strconv.Itoa(r.Port), "--bind", "127.0.0.1", "--save", "",
		"--daemonize", "no", "--dir", r.dir, "--logfile", logfile}, r.args...)
	argv := append(append(append([]string(nil), r.launch.Argv...), "redis-server"), args...)
	r.cmd = exec.Command(argv[0], argv[1:]...)
	if len(r.launch.Env) > 0 {
		r.cmd.Env = append(os.Environ(), r.launch.Env...)
	}
	if err := Start(r.cmd); err != nil {
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if Ping(r.Addr()) == nil {
			return r.ours(logfile)
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.Kill()
	log, _ := os.ReadFile(logfile)
	return fmt.Errorf("redis-server on port %d did not answer PING within 10s; its log:\n%s", r.Port, log)
}

// ours checks that the server answering on r's port is the one r started,
// by the log file it was given, and kills r's process if not: a port free
// a moment ago may have gone meanwhile to another test's server, which
// then answers PING while r's own fails to bind. Seen in lab/faults,
// where parallel clusters took each other's nodes ("Node ... is not
// empty") and redis-cli --cluster create hung.
func (r *Redis) ours(logfile string) error {
	reply, err := commandArray(r.Addr(), "CONFIG", "GET", "logfile")
	if err == nil && (len(reply) != 2 || reply[1] != logfile) {
		err = fmt.Errorf("the server on port %d logs to %q, not to %q: another one took the port", r.Port, reply, logfile)
	}
	if err != nil {
		r.Kill()
	}
	return err
}

// Kill stops the server with SIGKILL, as a crash would, and waits for the
// process to end. Killing a stopped server does nothing.
func (r *Redis) Kill() {
	Kill(r.cmd)
	r.cmd = nil
}

// Signal sends sig to the server's process (SIGSTOP and SIGCONT stall and
// resume it). It fails if the server is not running.
func (r *Redis) Signal(sig os.Signal) error {
	if r.cmd == nil {
		return fmt.Errorf("redis-server on port %d is not running", r.Port)
	}
	return r.cmd.Process.Signal(sig)
}

// Running reports whether the server was started and not killed since.
func (r *Redis) Running() bool { return r.cmd != nil }

// commandArray sends one command to the server at addr and returns its
// reply, an array of bulk strings.
func commandArray(addr string, args ...string) ([]string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	req := fmt.Sprintf("*%d\r\n", len(args))
	for _, a := range args {
		req += fmt.Sprintf("$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(req)); err != nil {
		return nil, err
	}
	rd := bufio.NewReader(c)
	n, err := header(rd, '*')
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, n)
	for range n {
		size, err := header(rd, '$')
		if err != nil {
			return nil, err
		}
		buf := make([]byte, size+2) // and its CRLF
		if _, err := io.ReadFull(rd, buf); err != nil {
			return nil, err
		}
		out = append(out, string(buf[:size]))
	}
	return out, nil
}

// header reads a reply's line that starts with kind and a count.
func header(rd *bufio.Reader, kind byte) (int, error) {
	line, err := rd.ReadString('\n')
	if err != nil {
		return 0, err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" || line[0] != kind {
		return 0, fmt.Errorf("redis: unexpected reply %q", line)
	}
	return strconv.Atoi(line[1:])
}

// Ping sends PING to the Redis server at addr over a raw connection, so that
// no client goroutine is involved, and fails unless it answers PONG within
// a second.
func Ping(addr string) error {
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
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}
