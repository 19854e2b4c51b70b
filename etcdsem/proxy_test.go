package etcdsem_test

import (
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// proxy is a TCP proxy on a free loopback port in front of one address,
// whose Cut drops every connection and refuses new ones: a partition
// between the proxy's clients and the server.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	cut    bool
	wg     sync.WaitGroup
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &proxy{ln: ln, target: target}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.Cut)
	return p
}

// Addr is the address clients dial instead of the target's.
func (p *proxy) Addr() string { return p.ln.Addr().String() }

func (p *proxy) accept() {
	defer p.wg.Done()
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return // Cut closed the listener
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			in.Close()
			continue
		}
		if !p.track(in, out) {
			return
		}
		p.wg.Add(2)
		go p.pipe(in, out)
		go p.pipe(out, in)
	}
}

// track records a connection pair, or closes it and reports false if the
// proxy was cut meanwhile.
func (p *proxy) track(in, out net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		in.Close()
		out.Close()
		return false
	}
	p.conns = append(p.conns, in, out)
	return true
}

func (p *proxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
}

// Cut closes the listener and every connection, and waits for the proxy's
// goroutines. Calls after the first do nothing.
func (p *proxy) Cut() {
	p.mu.Lock()
	if p.cut {
		p.mu.Unlock()
		return
	}
	p.cut = true
	p.ln.Close()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// proxiedClient returns a proxy in front of the test server and a client
// that reaches the server only through it, closed when t ends.
func proxiedClient(t *testing.T) (*proxy, *clientv3.Client) {
	t.Helper()
	px := startProxy(t, strings.TrimPrefix(server.Endpoints[0], "http://"))
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{px.Addr()}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return px, c
}
