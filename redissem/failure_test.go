package redissem_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/redissem"
)

// redis-server is killed with SIGKILL mid-run and restarted on the same
// port from an append-only file fsynced on every write, after an outage
// shorter than the lease, while workers on two clients keep acquiring. In
// between, calls fail with clear errors; afterwards the workers recover, and
// the resource never sees more than size permits in use.
//
// Nothing Redis acknowledged is lost here, and no lease can run out during
// the outage: this is the recovery of a durable server, not a lost write.
// The restarts that lose grants (from an RDB snapshot, and a Sentinel
// failover to a replica that lagged) are lab/faults'
// TestRedisKillRestart and TestSentinelFailover.
func TestRestartFromFsyncedAOF(t *testing.T) {
	t.Parallel()
	const size = 2
	const lease = 4 * time.Second
	srv, err := startRedis(t.TempDir(), true)
	require.NoError(t, err)
	defer srv.Kill()

	res := newResource(size)
	var errs errorsCollector
	name := uniqueName(t)
	var handles []*redissem.Semaphore
	for range 2 {
		rdb := newClient(t, srv.Addr())
		s := newNamed(t, rdb, name, size, redissem.WithLease(lease), redissem.WithTimeout(300*time.Millisecond),
			redissem.WithErrorHandler(errs.add))
		defer s.Close()
		handles = append(handles, s)
	}

	var phase atomic.Int32 // 0 before the kill, 1 while down, 2 after the restart
	var okAfter, failedDown atomic.Int64
	var sample atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 6 {
		s := handles[w%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				started := phase.Load()
				p, err := s.AcquirePermit(ctx, 1)
				cancel()
				if err != nil {
					if started == 1 || phase.Load() == 1 {
						failedDown.Add(1)
						if errors.Is(err, redissem.ErrUnavailable) {
							sample.Store(err.Error())
						}
					}
					time.Sleep(50 * time.Millisecond)
					continue
				}
				res.enter(p.Token(), 1)
				time.Sleep(5 * time.Millisecond)
				res.exit(p.Token())
				if err := p.Release(context.Background()); err == nil && phase.Load() == 2 {
					okAfter.Add(1)
				}
			}
		}()
	}

	time.Sleep(time.Second)
	phase.Store(1)
	srv.Kill()
	time.Sleep(2 * time.Second)
	require.NoError(t, srv.Restart())
	phase.Store(2)
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()

	entries, maxInUse, violations := res.report()
	assert.Empty(t, violations)
	assert.Positive(t, failedDown.Load(), "no Acquire failed while Redis was down")
	msg, _ := sample.Load().(string)
	assert.Contains(t, msg, "redissem: AcquirePermit(1) on \""+name+"\": redissem: server unreachable", "the error names the call, the semaphore and the cause")
	assert.Positive(t, okAfter.Load(), "no worker recovered after the restart")
	t.Logf("%d grants, at most %d in use; %d failed Acquires while down, e.g. %q; %d successful cycles after the restart",
		entries, maxInUse, failedDown.Load(), msg, okAfter.Load())
	// Releases that failed while Redis was down are retried by the
	// refresher, or expire with their lease: every permit comes back.
	waitFor(t, "every permit to come back", func() bool { return available(t, handles[0]) == size })
}

// Release while Redis is down: ReleaseErr reports it, the handle forgets the
// permits, and Redis gets them back once it is up again: the handle retries
// every twelfth of the lease, well before the lease would expire.
func TestReleaseWhileRedisDown(t *testing.T) {
	t.Parallel()
	const lease = 8 * time.Second
	srv, err := startRedis(t.TempDir(), true)
	require.NoError(t, err)
	defer srv.Kill()
	var errs errorsCollector
	h := newSem(t, newClient(t, srv.Addr()), 2, redissem.WithLease(lease), redissem.WithTimeout(500*time.Millisecond),
		redissem.WithErrorHandler(errs.add))
	other, err := redissem.New(context.Background(), newClient(t, srv.Addr()), h.Name(), 2)
	require.NoError(t, err)
	defer other.Close()

	require.NoError(t, h.Acquire(context.Background(), 2))
	srv.Kill()
	err = h.ReleaseErr(context.Background(), 1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "redissem: ReleaseErr(1) on \""+h.Name()+"\"")
	assert.Contains(t, err.Error(), "the permits return when their lease expires")
	h.Release(1)
	require.NotEmpty(t, errs.all(), "Release's error reached the handler")
	assert.Contains(t, errs.all()[0].Error(), "redissem: Release(1)")
	assert.Panics(t, func() { h.Release(1) }, "both permits left the handle's books")

	require.NoError(t, srv.Restart())
	ctx, cancel := context.WithTimeout(context.Background(), lease/2)
	defer cancel()
	require.NoError(t, other.Acquire(ctx, 2), "the permits did not come back within half the lease")
	other.Release(2)
}
