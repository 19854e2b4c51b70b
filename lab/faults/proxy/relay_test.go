package proxy_test

import (
	"bufio"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/lab/faults/proxy"
)

// lines starts a server that answers every line it reads with "ok <line>"
// and records the lines of all its connections in the order they arrive.
func lines(t *testing.T) (addr string, arrived func() []string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var got []string
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				in := bufio.NewScanner(c)
				for in.Scan() {
					mu.Lock()
					got = append(got, in.Text())
					mu.Unlock()
					_, _ = c.Write([]byte("ok " + in.Text() + "\n"))
				}
			}()
		}
	}()
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	return ln.Addr().String(), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// A held request whose client gave up and closed its connection still
// reaches the server, after a request sent later on another connection,
// and the server's answer to it is kept.
func TestRelayDeliversHeldRequestAfterClientClosed(t *testing.T) {
	addr, arrived := lines(t)
	r, err := proxy.StartRelay(addr)
	require.NoError(t, err)
	defer r.Close()
	held := r.Hold([]byte("acquire"), 300*time.Millisecond)

	slow, err := net.Dial("tcp", r.Addr())
	require.NoError(t, err)
	_, err = slow.Write([]byte("acquire 1\n"))
	require.NoError(t, err)
	select {
	case <-held.Caught():
	case <-time.After(5 * time.Second):
		t.Fatal("the relay did not catch the request")
	}
	require.NoError(t, slow.Close()) // the client gives up

	fast, err := net.Dial("tcp", r.Addr())
	require.NoError(t, err)
	defer fast.Close()
	_, err = fast.Write([]byte("withdraw 1\n"))
	require.NoError(t, err)
	reply, err := bufio.NewReader(fast).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "ok withdraw 1\n", reply)
	select {
	case <-held.Delivered():
		assert.Fail(t, "the held request was delivered before its hold ended")
	default:
	}

	select {
	case <-held.Answered():
	case <-time.After(5 * time.Second):
		t.Fatal("the held request never reached the server, or its answer never came back")
	}
	assert.Equal(t, "ok acquire 1\n", string(held.Reply()))
	assert.Equal(t, []string{"withdraw 1", "acquire 1"}, arrived(), "the withdrawal did not overtake the held request")
}

// Bytes that do not match the hold, and everything once it caught its
// request, flow at once.
func TestRelayHoldsOnlyItsRequest(t *testing.T) {
	addr, _ := lines(t)
	r, err := proxy.StartRelay(addr)
	require.NoError(t, err)
	defer r.Close()
	held := r.Hold([]byte("acquire"), time.Hour)
	c, err := net.Dial("tcp", r.Addr())
	require.NoError(t, err)
	defer c.Close()
	in := bufio.NewReader(c)
	_, err = c.Write([]byte("refresh\n"))
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	reply, err := in.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "ok refresh\n", reply)
	select {
	case <-held.Caught():
		t.Fatal("the hold caught a request without its pattern")
	default:
	}
}
