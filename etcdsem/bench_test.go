package etcdsem_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

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

// contenders builds, for one shared name, a handle of each implementation.
var contenders = []struct {
	name string
	new  func(b *testing.B, c *clientv3.Client, name string) locker
}{
	{"etcdsem", func(b *testing.B, c *clientv3.Client, name string) locker {
		s, err := etcdsem.New(c, name, 1)
		if err != nil {
			b.Fatal(err)
		}
		return semLocker{s}
	}},
	{"etcdmutex", func(b *testing.B, c *clientv3.Client, name string) locker {
		s, err := concurrency.NewSession(c)
		if err != nil {
			b.Fatal(err)
		}
		return mutexLocker{s, concurrency.NewMutex(s, "/bench-mutex/"+name)}
	}},
}

// countingClient returns a client of the test server that counts its unary
// calls: the round trips (lease keep-alives and watches are streams).
func countingClient(b *testing.B, calls *atomic.Int64) *clientv3.Client {
	count := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		calls.Add(1)
		return invoker(ctx, method, req, reply, cc, opts...)
	}
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   server.Endpoints,
		Logger:      zap.NewNop(),
		DialOptions: []grpc.DialOption{grpc.WithChainUnaryInterceptor(count)},
	})
	if err != nil {
		b.Fatal(err)
	}
	return c
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
				var calls atomic.Int64
				name := uniqueName(b)
				if scenario == "uncontended" {
					c := countingClient(b, &calls)
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
					c := countingClient(b, &calls)
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
