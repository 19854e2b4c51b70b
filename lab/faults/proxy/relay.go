package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// Relay forwards the TCP connections of a loopback port to a server, byte
// for byte, and can hold back one request on its way: the next chunk a
// client sends that contains a pattern waits on its connection for a
// while, then reaches the server even if the client gave up and closed its
// side meanwhile (the relay half-closes the server's side only after it).
// Every other connection flows freely, so a request the client sends on
// another connection after giving up (a withdrawal) overtakes the held
// one. toxiproxy cannot do this: its latency toxic drops what it holds
// when the client closes.
type Relay struct {
	ln       net.Listener
	upstream string
	done     chan struct{}
	wg       sync.WaitGroup

	mu    sync.Mutex
	armed *Held
	conns map[net.Conn]struct{}
}

// Held is a request a relay holds back, once a client sends it.
type Held struct {
	pattern []byte
	d       time.Duration

	caught, delivered, answered chan struct{}
	reply                       []byte
}

// Caught is closed when a client sent the request and the relay holds it.
func (h *Held) Caught() <-chan struct{} { return h.caught }

// Delivered is closed when the relay has written the request to the server.
func (h *Held) Delivered() <-chan struct{} { return h.delivered }

// Answered is closed when the server's first bytes after the delivery
// came back; Reply returns them then.
func (h *Held) Answered() <-chan struct{} { return h.answered }

// Reply returns the server's answer to the held request; call it once
// Answered is closed.
func (h *Held) Reply() []byte { return h.reply }

// StartRelay starts a relay to upstream (host:port) on a free loopback port.
func StartRelay(upstream string) (*Relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy: relay: %w", err)
	}
	r := &Relay{ln: ln, upstream: upstream, done: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

// Addr returns the address clients connect to instead of the server's.
func (r *Relay) Addr() string { return r.ln.Addr().String() }

// Hold makes the relay hold the next chunk a client sends that contains
// pattern for d before it delivers it. It panics if a hold is armed and
// has not caught its request yet.
func (r *Relay) Hold(pattern []byte, d time.Duration) *Held {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.armed != nil {
		panic("proxy: Relay.Hold: a hold is armed already")
	}
	r.armed = &Held{pattern: pattern, d: d,
		caught: make(chan struct{}), delivered: make(chan struct{}), answered: make(chan struct{})}
	return r.armed
}

// Close stops the relay and closes its connections, a held request
// undelivered.
func (r *Relay) Close() {
	close(r.done)
	_ = r.ln.Close()
	r.mu.Lock()
	for c := range r.conns {
		_ = c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

func (r *Relay) accept() {
	defer r.wg.Done()
	for {
		client, err := r.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.DialTimeout("tcp", r.upstream, time.Second)
		if err != nil {
			_ = client.Close()
			continue
		}
		if !r.track(client, server) {
			return
		}
		l := &link{client: client, server: server}
		r.wg.Add(2)
		go func() { defer r.wg.Done(); r.up(l) }()
		go func() { defer r.wg.Done(); r.down(l) }()
	}
}

// track records the connections of a link, for Close; it closes them and
// reports false once the relay is closed.
func (r *Relay) track(conns ...net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-r.done:
		for _, c := range conns {
			_ = c.Close()
		}
		return false
	default:
	}
	for _, c := range conns {
		r.conns[c] = struct{}{}
	}
	return true
}

// untrack closes the connections of a link that ended and forgets them.
func (r *Relay) untrack(conns ...net.Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
		delete(r.conns, c)
	}
}

// link is one client's connection and the relay's to the server.
type link struct {
	client, server net.Conn
	mu             sync.Mutex
	capture        *Held // delivered, waiting for the server's answer
}

// up copies the client's bytes to the server, holding the armed request,
// and half-closes the server's side once the client closed its own.
func (r *Relay) up(l *link) {
	buf := make([]byte, 64<<10)
	for {
		n, err := l.client.Read(buf)
		if n > 0 && !r.forward(l, buf[:n]) {
			return
		}
		if err != nil {
			if tcp, ok := l.server.(*net.TCPConn); ok {
				_ = tcp.CloseWrite()
			}
			return
		}
	}
}

// forward writes chunk to the server, after the hold if it is the armed
// request; it reports false when the relay closed during the hold.
func (r *Relay) forward(l *link, chunk []byte) bool {
	h := r.catch(chunk)
	if h != nil {
		close(h.caught)
		t := time.NewTimer(h.d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.done:
			return false
		}
		l.mu.Lock()
		l.capture = h
		l.mu.Unlock()
	}
	_, err := l.server.Write(chunk)
	if h != nil {
		close(h.delivered)
	}
	return err == nil
}

// catch returns the armed hold, disarmed, if chunk is its request.
func (r *Relay) catch(chunk []byte) *Held {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.armed
	if h == nil || !bytes.Contains(chunk, h.pattern) {
		return nil
	}
	r.armed = nil
	return h
}

// down copies the server's bytes to the client, and hands the first ones
// after a held request's delivery to its Held. It goes on reading after the
// client is gone, so that the server's answer to a held request is read.
func (r *Relay) down(l *link) {
	defer r.untrack(l.client, l.server)
	buf := make([]byte, 64<<10)
	for {
		n, err := l.server.Read(buf)
		if n > 0 {
			l.answer(buf[:n])
			_, _ = l.client.Write(buf[:n]) // the client may have gone
		}
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				l.answer(nil) // the server closed without answering
			}
			return
		}
	}
}

// answer gives b to the delivered request waiting for its answer, if any.
func (l *link) answer(b []byte) {
	l.mu.Lock()
	h := l.capture
	l.capture = nil
	l.mu.Unlock()
	if h != nil {
		h.reply = bytes.Clone(b)
		close(h.answered)
	}
}
