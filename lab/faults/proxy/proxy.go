// Package proxy puts a network fault between a client process and its
// server: a toxiproxy proxy run inside the test process, listening on a
// free loopback port and forwarding to the server, that can blackhole,
// delay or cut the connections through it; or a Relay that holds one
// request back until after its client gave up on it (relay.go).
package proxy

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// LeakedGoroutine is the top function of the goroutine toxiproxy v2.5.0
// (the last version published as a Go module) may leave blocked for good
// when a connection closes while a toxic is added or removed: its pass-through
// stage sends to a stage that has exited. Tests give it to
// goleak.IgnoreTopFunction; it holds no connection and no file.
const LeakedGoroutine = "github.com/Shopify/toxiproxy/v2/toxics.(*NoopToxic).Pipe"

// server is the in-process toxiproxy that owns every proxy; it serves no
// HTTP API: tests drive the proxies directly.
var server = toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())

var names atomic.Int64

// Proxy forwards one loopback address to a server.
type Proxy struct {
	p *toxiproxy.Proxy
}

// Start starts a proxy to upstream (host:port) on a free loopback port.
func Start(upstream string) (*Proxy, error) {
	name := fmt.Sprintf("proxy-%d", names.Add(1))
	p := toxiproxy.NewProxy(server, name, "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	return &Proxy{p: p}, nil
}

// Addr returns the address clients connect to instead of the server's.
func (p *Proxy) Addr() string { return p.p.Listen }

// URL returns Addr as an http URL, for etcd clients.
func (p *Proxy) URL() string { return "http://" + p.p.Listen }

// Blackhole makes the proxy swallow every byte in both directions, on the
// open connections and on new ones, with no error to either side: a
// partition as a client sees it, where requests time out and nothing
// resets.
func (p *Proxy) Blackhole() error {
	for _, stream := range []string{"upstream", "downstream"} {
		if err := p.add("timeout", stream, `{"timeout":0}`); err != nil {
			return err
		}
	}
	return nil
}

// Delay adds d of latency to every chunk of data, in both directions.
func (p *Proxy) Delay(d time.Duration) error {
	for _, stream := range []string{"upstream", "downstream"} {
		if err := p.add("latency", stream, fmt.Sprintf(`{"latency":%d}`, d.Milliseconds())); err != nil {
			return err
		}
	}
	return nil
}

func (p *Proxy) add(kind, stream, attributes string) error {
	body := fmt.Sprintf(`{"name":"%s_%s","type":%q,"stream":%q,"attributes":%s}`, kind, stream, kind, stream, attributes)
	if _, err := p.p.Toxics.AddToxicJson(strings.NewReader(body)); err != nil {
		return fmt.Errorf("proxy: adding %s on %s: %w", kind, stream, err)
	}
	return nil
}

// Heal removes every fault. Removing a blackhole closes the connections it
// held, whose streams lost bytes: clients reconnect to the same address, as
// after a partition long enough for TCP to give up.
func (p *Proxy) Heal() {
	p.p.Toxics.ResetToxics(context.Background())
}

// Cut closes every connection through the proxy, as a crashed middlebox
// would, and accepts new ones at once.
func (p *Proxy) Cut() error {
	p.p.Stop()
	if err := p.p.Start(); err != nil {
		return fmt.Errorf("proxy: reopening %s: %w", p.p.Listen, err)
	}
	return nil
}

// Close stops the proxy and closes its connections.
func (p *Proxy) Close() { p.p.Stop() }
