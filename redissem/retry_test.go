package redissem_test

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/redissem"
)

// stallServer makes the server at addr sleep for d (DEBUG SLEEP) and returns
// once it is stalled: a PING on another connection gets no answer within a
// fifth of d.
func stallServer(t *testing.T, addr string, d time.Duration) {
	t.Helper()
	sleeper, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { _ = sleeper.Close() })
	_, err = sleeper.Write(redisCommand("DEBUG", "SLEEP", d.String()[:len(d.String())-2]+"e-3"))
	require.NoError(t, err)
	probe, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer probe.Close()
	r := bufio.NewReader(probe)
	for range 10 {
		_, err := probe.Write(redisCommand("PING"))
		require.NoError(t, err)
		_ = probe.SetReadDeadline(time.Now().Add(d / 5))
		if _, err := r.ReadString('\n'); err != nil {
			return
		}
	}
	t.Fatal("the server kept answering PING after DEBUG SLEEP")
}

// redisCommand encodes a command in RESP.
func redisCommand(args ...string) []byte {
	var b bytes.Buffer
	b.WriteString("*" + itoa(len(args)) + "\r\n")
	for _, a := range args {
		b.WriteString("$" + itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	return b.Bytes()
}

func itoa(i int) string { return string(appendInt(nil, i)) }

func appendInt(b []byte, i int) []byte {
	if i >= 10 {
		b = appendInt(b, i/10)
	}
	return append(b, byte('0'+i%10))
}

// scriptSends counts the scripts a client writes to its connections, the
// retries go-redis makes included.
type scriptSends struct{ n atomic.Int64 }

func (c *scriptSends) dialer(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := new(net.Dialer).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return countingConn{conn, c}, nil
}

type countingConn struct {
	net.Conn
	c *scriptSends
}

func (cc countingConn) Write(b []byte) (int, error) {
	cc.c.n.Add(int64(bytes.Count(bytes.ToLower(b), []byte("evalsha"))))
	return cc.Conn.Write(b)
}

// A release whose first reply comes after the client's read timeout is
// retried by go-redis, and the retry reaches Redis after the release
// itself: it must still report success, not a lost lease.
func TestRetriedReleaseIsNotLost(t *testing.T) {
	t.Parallel()
	// A server of its own: the stalls would hold up every other test's
	// scripts and refreshes on the shared one.
	srv, err := startRedis(t.TempDir(), false)
	require.NoError(t, err)
	t.Cleanup(srv.Kill)
	sends := new(scriptSends)
	opts := clientOptions(srv.Addr())
	opts.ReadTimeout = 150 * time.Millisecond
	opts.Dialer = sends.dialer
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	s := newSem(t, rdb, 1, redissem.WithLease(10*time.Second))
	ctx := context.Background()
	require.NoError(t, s.Acquire(ctx, 1))
	s.Release(1) // Redis caches both scripts, so that each call is one EVALSHA
	// On a loaded machine the release can reach the server only as the
	// stall ends, and then go-redis has nothing to retry: such a round
	// proves nothing, so the test plays rounds until one was retried.
	retried := false
	for round := 0; round < 5 && !retried; round++ {
		p, err := s.AcquirePermit(ctx, 1)
		require.NoError(t, err)
		stallServer(t, srv.Addr(), 250*time.Millisecond)
		before := sends.n.Load()
		err = p.Release(ctx)
		require.NoError(t, err, "a release that Redis ran twice reported its grant lost")
		retried = sends.n.Load()-before >= 2
	}
	assert.True(t, retried, "go-redis never retried the release in 5 rounds: every stall missed it")
	assert.Equal(t, int64(1), available(t, s))
}
