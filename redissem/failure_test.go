package redissem_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/redissem"
)

// redis-server is killed mid-run and restarted on the same port, with its
// fsynced append-only file, while workers on two clients keep acquiring.
// In between, calls fail with clear errors; afterwards the workers recover,
// and the resource never sees more than size permits in use.
func TestRedisRestart(t *testing.T) {
	const size = 2
	const lease = 4 * time.Second
	srv, err := startRedis(t.TempDir(), true)
	require.NoError(t, err)
	defer srv.kill()

	res := newResource(size)
	var errs errorsCollector
	name := uniqueName(t)
	var handles []*redissem.Semaphore
	for range 2 {
		rdb := newClient(t, srv.addr())
		s, err := redissem.New(rdb, name, size, redissem.WithLease(lease), redissem.WithTimeout(300*time.Millisecond),
			redissem.WithErrorHandler(errs.add))
		require.NoError(t, err)
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
	srv.kill()
	time.Sleep(2 * time.Second)
	require.NoError(t, srv.start())
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
	const lease = 8 * time.Second
	srv, err := startRedis(t.TempDir(), true)
	require.NoError(t, err)
	defer srv.kill()
	var errs errorsCollector
	h := newSem(t, newClient(t, srv.addr()), 2, redissem.WithLease(lease), redissem.WithTimeout(500*time.Millisecond),
		redissem.WithErrorHandler(errs.add))
	other, err := redissem.New(newClient(t, srv.addr()), h.Name(), 2)
	require.NoError(t, err)
	defer other.Close()

	require.NoError(t, h.Acquire(context.Background(), 2))
	srv.kill()
	err = h.ReleaseErr(context.Background(), 1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "redissem: ReleaseErr(1) on \""+h.Name()+"\"")
	assert.Contains(t, err.Error(), "the permits return when their lease expires")
	h.Release(1)
	require.NotEmpty(t, errs.all(), "Release's error reached the handler")
	assert.Contains(t, errs.all()[0].Error(), "redissem: Release(1)")
	assert.Panics(t, func() { h.Release(1) }, "both permits left the handle's books")

	require.NoError(t, srv.start())
	ctx, cancel := context.WithTimeout(context.Background(), lease/2)
	defer cancel()
	require.NoError(t, other.Acquire(ctx, 2), "the permits did not come back within half the lease")
	other.Release(2)
}

// classicSemaphore is the timestamp-scored sorted-set recipe found in many
// tutorials: drop holders older than the timeout, add yourself scored by
// your clock, and you hold a permit if your rank is below the limit. Here
// each client's clock is injectable.
type classicSemaphore struct {
	rdb     *redis.Client
	key     string
	limit   int64
	timeout time.Duration
	now     func() time.Time
}

func (c *classicSemaphore) tryAcquire(ctx context.Context, id string) (bool, error) {
	now := c.now()
	var rank *redis.IntCmd
	_, err := c.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ZRemRangeByScore(ctx, c.key, "-inf", fmt.Sprint(now.Add(-c.timeout).UnixMilli()))
		p.ZAdd(ctx, c.key, redis.Z{Score: float64(now.UnixMilli()), Member: id})
		rank = p.ZRank(ctx, c.key, id)
		return nil
	})
	if err != nil {
		return false, err
	}
	if rank.Val() < c.limit {
		return true, nil
	}
	return false, c.rdb.ZRem(ctx, c.key, id).Err()
}

// With clocks a few seconds apart, the classic recipe admits a second
// holder to a semaphore of size 1: a client whose clock runs ahead reaps the
// live holder as expired, and one whose clock runs behind ranks ahead of it.
// The same scenario with redissem admits nobody: it never reads a client's
// clock (there is none to skew), only the server's.
func TestClockSkew(t *testing.T) {
	rdb := newClient(t, shared.addr())
	ctx := context.Background()
	for _, skew := range []time.Duration{15 * time.Second, -5 * time.Second} {
		t.Run(fmt.Sprintf("classic/skew=%v", skew), func(t *testing.T) {
			key := uniqueName(t)
			fair := &classicSemaphore{rdb: rdb, key: key, limit: 1, timeout: 10 * time.Second, now: time.Now}
			skewed := *fair
			skewed.now = func() time.Time { return time.Now().Add(skew) }
			ok, err := fair.tryAcquire(ctx, "a")
			require.NoError(t, err)
			require.True(t, ok, "the first client acquires the only permit")
			ok, err = skewed.tryAcquire(ctx, "b")
			require.NoError(t, err)
			assert.True(t, ok, "expected the flaw: the skewed client is admitted too")
			holders := rdb.ZRange(ctx, key, 0, -1).Val()
			t.Logf("classic recipe, size 1, clock skew %v: holders %v; the second was admitted: %v", skew, holders, ok)
		})
		t.Run(fmt.Sprintf("redissem/skew=%v", skew), func(t *testing.T) {
			first := newSem(t, newClient(t, shared.addr()), 1)
			second, err := redissem.New(newClient(t, shared.addr()), first.Name(), 1)
			require.NoError(t, err)
			defer second.Close()
			require.True(t, first.TryAcquire(1), "the first client acquires the only permit")
			assert.False(t, second.TryAcquire(1), "a second client is admitted")
			ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			assert.ErrorIs(t, second.Acquire(ctx, 1), context.DeadlineExceeded)
			first.Release(1)
		})
	}
}
