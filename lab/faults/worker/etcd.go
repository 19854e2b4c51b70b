package worker

import (
	"context"
	"errors"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/semacat/sem/etcdsem"
)

// etcdHandle adapts etcdsem to the worker. An etcdsem handle whose lease
// was lost cannot be used again, so it is replaced, and the worker goes on.
type etcdHandle struct {
	cli  *clientv3.Client
	spec Spec
	s    *etcdsem.Semaphore
}

func openEtcd(s Spec) (Acquirer, error) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: s.Endpoints, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return nil, err
	}
	h := &etcdHandle{cli: cli, spec: s}
	if err := h.renew(); err != nil {
		_ = cli.Close()
		return nil, err
	}
	return h, nil
}

func (h *etcdHandle) renew() error {
	s := h.spec
	sem, err := etcdsem.New(context.Background(), h.cli, s.Semaphore, s.Size, etcdsem.WithLease(s.Lease), etcdsem.WithTimeout(s.ReleaseTimeout))
	if err == nil {
		h.s = sem
	}
	return err
}

func (h *etcdHandle) Acquire(ctx context.Context, n int64) (Grant, error) {
	p, err := h.s.AcquirePermit(ctx, n)
	if errors.Is(err, etcdsem.ErrLeaseLost) || errors.Is(err, etcdsem.ErrClosed) {
		_ = h.s.Close()
		if rerr := h.renew(); rerr != nil {
			return nil, errors.Join(err, rerr)
		}
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (h *etcdHandle) Close() error {
	_ = h.s.Close()
	return h.cli.Close()
}
