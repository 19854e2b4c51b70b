package etcdsem

import (
	"fmt"

	"github.com/semacat/sem"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Waiting reports how many Acquire calls wait in the semaphore's queue in
// etcd, across every handle on its name, and how many permits they ask for
// in total: a snapshot for monitoring, stale as soon as it returns. It
// reads the whole queue in one round trip, bounded by the timeout (see
// [WithTimeout]); if that fails, it reports 0, 0 and passes the error to
// the handler set with [WithErrorHandler].
func (s *Semaphore) Waiting() (requests int, permits int64) {
	ctx, cancel := s.opCtx()
	defer cancel()
	resp, err := s.cli.Txn(ctx).Then(s.getSize(), clientv3.OpGet(s.queue, clientv3.WithPrefix(),
		clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend))).Commit()
	if err != nil {
		s.report(roundTripErr(fmt.Sprintf("Waiting on %q", s.name), err))
		return 0, 0
	}
	rec := s.learnSize((*clientv3.GetResponse)(resp.Responses[0].GetResponseRange()))
	kvs := resp.Responses[1].GetResponseRange().Kvs
	_, holding := s.holders(rec, kvs)
	for _, kv := range kvs[holding:] {
		permits += s.weightOf(kv.Value, rec.size)
	}
	return len(kvs) - holding, permits
}

// OnWait installs f to be called once for every Acquire or AcquirePermit of
// this handle that had to wait in the queue, when it stops waiting
// (granted, canceled, or failed), from the goroutine that called it and
// before it returns. f must be safe for concurrent use and must not block
// for long. OnWait(nil) removes it.
func (s *Semaphore) OnWait(f func(sem.WaitEvent)) {
	if f == nil {
		s.onWait.Store(nil)
		return
	}
	s.onWait.Store(&f)
}
