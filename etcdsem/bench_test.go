package etcdsem_test

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"
	"google.golang.org/grpc"

	"github.com/semacat/sem/etcdsem"
)

// locker is what the benchmarks time: one Acquire+Release or Lock+Unlock.
type locker interface {
	lock(ctx context.Context) error
	unlock(ctx context.Context) error
	close()
}

type semLocker struct{ s *etcdsem.Semaphore }

func (l semLocker) lock(ctx context.Context) error   { return l.s.Acquire(ctx, 1) }
func (l semLocker) unlock(ctx context.Context) error { return l.s.ReleaseErr(ctx, 1) }
func (l semLocker) close()                           { _ = l.s.Close() }

type mutexLocker struct {
	s *concurrency.Session
	m *concurrency.Mutex
}

func (l mutexLocker) lock(ctx context.Context) error   { return l.m.Lock(ctx) }
func (l mutexLocker) unlock(ctx context.Context) error { return l.m.Unlock(ctx) }
func (l mutexLocker) close()                           { _ = l.s.Close() }

// contenders builds, for one shared name, a handle of each implementation,
// and says under which prefix its queue keys live.
var contenders = []struct {
	name  string
	new   func(tb testing.TB, c *clientv3.Client, name string) locker
	queue func(name string) string
}{
	{"etcdsem", func(tb testing.TB, c *clientv3.Client, name string) locker {
		s, err := etcdsem.New(context.Background(), c, name, 1)
		if err != nil {
			tb.Fatal(err)
		}
		return semLocker{s}
	}, func(name string) string { return etcdsem.DefaultPrefix + url.PathEscape(name) + "/q/" }},
	{"etcdmutex", func(tb testing.TB, c *clientv3.Client, name string) locker {
		s, err := concurrency.NewSession(c)
		if err != nil {
			tb.Fatal(err)
		}
		return mutexLocker{s, concurrency.NewMutex(s, "/bench-mutex/"+name)}
	}, func(name string) string { return "/bench-mutex/" + name + "/" }},
}

// counts are what a client of the test server received: its unary calls
// (round trips; lease keep-alives and watches are streams) and the watch
// events the server delivered to it.
type counts struct {
	calls, events atomic.Int64
}

// countingClient returns a client of the test server that counts its
// round trips and the watch events it receives in c.
func countingClient(tb testing.TB, c *counts) *clientv3.Client {
	unary := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		c.calls.Add(1)
		return invoker(ctx, method, req, reply, cc, opts...)
	}
	stream := func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		cs, err := streamer(ctx, desc, cc, method, opts...)
		return eventCounter{cs, &c.events}, err
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints: server.Endpoints,
		Logger:    zap.NewNop(),
		DialOptions: []grpc.DialOption{
			grpc.WithChainUnaryInterceptor(unary), grpc.WithChainStreamInterceptor(stream)},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return cli
}

// eventCounter counts the events of the watch responses a stream receives.
type eventCounter struct {
	grpc.ClientStream
	events *atomic.Int64
}

func (s eventCounter) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if wr, ok := m.(*etcdserverpb.WatchResponse); ok && err == nil {
		s.events.Add(int64(len(wr.Events)))
	}
	return err
}

// BenchmarkLock compares Acquire(1)+Release(1) on a semaphore of size 1 with
// Lock+Unlock of etcd's own concurrency.Mutex, against the embedded
// single-member server (fsync off), and reports the round trips per
// operation (rtt/op). Compare with benchstat -col /impl.
//
//   - uncontended: one handle locks and unlocks in a loop.
//   - contended: GOMAXPROCS handles, each with its own client, take turns.
func BenchmarkLock(b *testing.B) {
	ctx := context.Background()
	// Warm the server up (its storage grows on the first writes), so that
	// the first contender timed does not pay for it.
	for i := range 500 {
		key := fmt.Sprintf("/bench-warmup/%d", i)
		if _, err := cli.Put(ctx, key, "x"); err != nil {
			b.Fatal(err)
		}
		if _, err := cli.Delete(ctx, key); err != nil {
			b.Fatal(err)
		}
	}
	for _, scenario := range []string{"uncontended", "contended"} {
		for _, impl := range contenders {
			b.Run(scenario+"/impl="+impl.name, func(b *testing.B) {
				var n counts
				calls := &n.calls
				name := uniqueName(b)
				if scenario == "uncontended" {
					c := countingClient(b, &n)
					defer c.Close()
					l := impl.new(b, c, name)
					defer l.close()
					calls.Store(0)
					b.ReportAllocs()
					for b.Loop() {
						if err := l.lock(ctx); err != nil {
							b.Fatal(err)
						}
						if err := l.unlock(ctx); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(calls.Load())/float64(b.N), "rtt/op")
					return
				}
				var mu sync.Mutex
				var ls []locker
				var cs []*clientv3.Client
				defer func() {
					for i := range ls {
						ls[i].close()
						cs[i].Close()
					}
				}()
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					c := countingClient(b, &n)
					l := impl.new(b, c, name)
					mu.Lock()
					ls, cs = append(ls, l), append(cs, c)
					mu.Unlock()
					for pb.Next() {
						if err := l.lock(ctx); err != nil {
							b.Error(err)
							return
						}
						if err := l.unlock(ctx); err != nil {
							b.Error(err)
							return
						}
					}
				})
				b.ReportMetric(float64(calls.Load())/float64(b.N), "rtt/op")
			})
		}
	}
}
