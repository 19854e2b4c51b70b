package servers

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/semacat/sem/lab/devserver"
)

// libfaketime is where Debian's faketime package puts the library.
const libfaketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"

// ClockRedis is a redis-server whose wall clock can be stepped while it
// runs, as NTP or an operator steps a machine's clock: it runs under
// libfaketime, which reads the offset from a file at every clock read;
// the monotonic clock is left alone, as a real step leaves it.
type ClockRedis struct {
	*Redis
	offsetFile string
	offset     time.Duration
}

// StartClockRedis starts redis-server under libfaketime with its data in
// dir and its wall clock at the machine's; it is killed when t ends.
func StartClockRedis(t testing.TB, dir string, extra ...string) *ClockRedis {
	t.Helper()
	if _, err := os.Stat(libfaketime); err != nil {
		t.Fatalf("servers: libfaketime is not installed (Debian: apt-get install faketime): %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("servers: %v", err)
	}
	c := &ClockRedis{offsetFile: filepath.Join(dir, "faketime")}
	if err := c.write(); err != nil {
		t.Fatalf("servers: %v", err)
	}
	launch := devserver.Launcher{Env: []string{
		// glibc's malloc goes in front of the jemalloc redis-server links,
		// whose start otherwise deadlocks with libfaketime's.
		"LD_PRELOAD=libc_malloc_debug.so.0:" + libfaketime,
		"FAKETIME_TIMESTAMP_FILE=" + c.offsetFile,
		"FAKETIME_NO_CACHE=1",
		"FAKETIME_DONT_FAKE_MONOTONIC=1",
	}}
	srv, err := devserver.StartRedisUnder(launch, dir, append([]string{"--appendonly", "no"}, extra...)...)
	if err != nil {
		t.Fatalf("servers: %v", err)
	}
	c.Redis = &Redis{t: t, srv: srv}
	t.Cleanup(c.Kill)
	return c
}

// Step moves the server's wall clock by d (forward if positive) at once.
func (c *ClockRedis) Step(d time.Duration) error {
	c.offset += d
	return c.write()
}

func (c *ClockRedis) write() error {
	// libfaketime's relative form: "+30" is 30 seconds ahead.
	return os.WriteFile(c.offsetFile, []byte(fmt.Sprintf("%+.3f\n", c.offset.Seconds())), 0o644)
}
