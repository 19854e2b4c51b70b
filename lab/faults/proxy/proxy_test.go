package proxy_test

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem/lab/faults/proxy"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction(proxy.LeakedGoroutine))
}

// echo starts a server that echoes every connection until t ends.
func echo(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); _ = c.Close() }()
		}
	}()
	t.Cleanup(func() { _ = ln.Close(); <-done })
	return ln.Addr().String()
}

// roundTrip sends a byte through c and waits up to wait for its echo.
func roundTrip(c net.Conn, wait time.Duration) error {
	_ = c.SetDeadline(time.Now().Add(wait))
	if _, err := c.Write([]byte{'x'}); err != nil {
		return err
	}
	_, err := io.ReadFull(c, make([]byte, 1))
	return err
}

func dial(t *testing.T, p *proxy.Proxy) net.Conn {
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// connected starts a proxy to an echo server and returns it with a
// connection through it that has carried a round trip.
func connected(t *testing.T) (*proxy.Proxy, net.Conn) {
	p, err := proxy.Start(echo(t))
	require.NoError(t, err)
	t.Cleanup(p.Close)
	c := dial(t, p)
	require.NoError(t, roundTrip(c, time.Second))
	return p, c
}

// A blackhole swallows bytes without an error; Heal ends it, closing the
// connection it corrupted, and new connections work.
func TestBlackholeAndHeal(t *testing.T) {
	p, c := connected(t)
	require.NoError(t, p.Blackhole())
	err := roundTrip(c, 200*time.Millisecond)
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout(), "want a timeout, got %v", err)
	p.Heal()
	assert.Error(t, roundTrip(c, time.Second), "the blackholed connection survived Heal")
	require.NoError(t, roundTrip(dial(t, p), time.Second))
}

// Cut closes open connections at once and accepts new ones.
func TestCut(t *testing.T) {
	p, c := connected(t)
	require.NoError(t, p.Cut())
	_ = c.SetDeadline(time.Now().Add(time.Second))
	_, err := c.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF)
	require.NoError(t, roundTrip(dial(t, p), time.Second))
}

// Delay holds every chunk back in both directions.
func TestDelay(t *testing.T) {
	p, _ := connected(t)
	const d = 100 * time.Millisecond
	require.NoError(t, p.Delay(d))
	c := dial(t, p)
	start := time.Now()
	require.NoError(t, roundTrip(c, 5*time.Second))
	assert.GreaterOrEqual(t, time.Since(start), 2*d)
}
