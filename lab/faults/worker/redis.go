package worker

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/semacat/sem/redissem"
)

// redisHandle adapts redissem to the worker.
type redisHandle struct {
	rdb redis.UniversalClient
	s   *redissem.Semaphore
	// session and decoy are the Session the handle is on and the other
	// handle on it, when the Spec names a Decoy.
	session *redissem.Session
	decoy   *redissem.Semaphore
	// recs and holders are the keys of the semaphore's records and of
	// their expiries, for forgetWithdrawals; empty unless the worker is
	// the broken ForgetWithdrawals.
	recs, holders string
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
		ContextTimeoutEnabled: s.ContextTimeout,
	})
	opts := []redissem.Option{redissem.WithLease(s.Lease), redissem.WithTimeout(s.ReleaseTimeout)}
	if s.Replicas > 0 {
		opts = append(opts, redissem.WithReplicas(s.Replicas, s.Lease/4))
	}
	h := &redisHandle{rdb: rdb}
	if s.Decoy != "" {
		if err := h.openDecoy(s, opts); err != nil {
			_ = h.Close()
			return nil, err
		}
		opts = append(opts, redissem.WithSession(h.session))
	}
	sem, err := redissem.New(context.Background(), rdb, s.Semaphore, s.Size, opts...)
	if err != nil {
		_ = h.Close()
		return nil, err
	}
	h.s = sem
	if s.ForgetWithdrawals {
		keys := redissem.DefaultPrefix + "{" + s.Semaphore + "}:"
		h.recs, h.holders = keys+"recs", keys+"holders"
	}
	return h, nil
}

func (h *redisHandle) Acquire(ctx context.Context, n int64) (Grant, error) {
	p, err := h.s.AcquirePermit(ctx, n)
	if err != nil {
		if h.recs != "" {
			err = errors.Join(err, forgetWithdrawals.Run(context.WithoutCancel(ctx), h.rdb, []string{h.recs, h.holders}).Err())
		}
		return nil, err
	}
	return p, nil
}

// forgetWithdrawals deletes the tombstones ("x" records, and their expiry
// in holders) that redissem leaves for withdrawn and released requests, so
// that a request reaching Redis after its own withdrawal is granted, as
// it was before redissem kept them. It knows redissem's keys, which no
// client should.
var forgetWithdrawals = redis.NewScript(`
for _, id in ipairs(redis.call('HKEYS', KEYS[1])) do
  if redis.call('HGET', KEYS[1], id) == 'x' then
    redis.call('HDEL', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
  end
end
return 0`)

// openDecoy opens the Session and, on it, the decoy handle, and takes one
// of the decoy's permits.
func (h *redisHandle) openDecoy(s Spec, opts []redissem.Option) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*s.Lease)
	defer cancel()
	var err error
	if h.session, err = redissem.NewSession(ctx, h.rdb); err != nil {
		return err
	}
	h.decoy, err = redissem.New(ctx, h.rdb, s.Decoy, s.DecoySize, append(opts, redissem.WithSession(h.session))...)
	if err != nil {
		return err
	}
	return h.decoy.Acquire(ctx, 1)
}

func (h *redisHandle) Close() error {
	if h.s != nil {
		_ = h.s.Close()
	}
	if h.decoy != nil {
		_ = h.decoy.Close()
	}
	if h.session != nil {
		_ = h.session.Close()
	}
	return h.rdb.Close()
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}
