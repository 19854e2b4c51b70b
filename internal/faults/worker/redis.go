package worker

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/semacat/sem/redissem"
)

// redisHandle adapts redissem to the worker.
type redisHandle struct {
	rdb redis.UniversalClient
	s   *redissem.Semaphore
}

func openRedis(s Spec) (Acquirer, error) {
	redis.SetLogger(quiet{}) // the runs break connections on purpose; the history has the errors
	readTimeout := s.ReadTimeout
	if readTimeout == 0 {
		readTimeout = time.Second
	}
	rdb := redis.NewUniversalClient(&redis.UniversalOptions{
		Addrs: s.Endpoints, MasterName: s.MasterName, // several Addrs: a Cluster
		DialTimeout: time.Second, ReadTimeout: readTimeout, WriteTimeout: time.Second,
	})
	opts := []redissem.Option{redissem.WithLease(s.Lease), redissem.WithTimeout(s.ReleaseTimeout)}
	if s.Replicas > 0 {
		opts = append(opts, redissem.WithReplicas(s.Replicas, s.Lease/4))
	}
	sem, err := redissem.New(rdb, s.Semaphore, s.Size, opts...)
	if err != nil {
		_ = rdb.Close()
		return nil, err
	}
	return &redisHandle{rdb: rdb, s: sem}, nil
}

func (h *redisHandle) Acquire(ctx context.Context, n int64) (Grant, error) {
	p, err := h.s.AcquirePermit(ctx, n)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (h *redisHandle) Close() error {
	_ = h.s.Close()
	return h.rdb.Close()
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}
