package etcdsem_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/etcdsem"
)

// A 3-member cluster of separate processes has its leader stopped
// gracefully (SIGTERM, which hands leadership over) while handles on every
// member keep acquiring and releasing: after the election the semaphore
// keeps working, never more than size permits are out, and none is left out
// at the end. A graceful stop is not a crash: the SIGKILL of the leader's
// process and its restart from its data directory is lab/faults'
// TestEtcd/kill-leader.
func TestLeaderStop(t *testing.T) {
	t.Parallel()
	c, err := startCluster(server.bin, t.TempDir(), 3)
	require.NoError(t, err)
	defer c.close()

	const size, workers = 2, 4
	name := uniqueName(t)
	var (
		out, most atomic.Int64
		ops       [workers]atomic.Int64
		errs      sync.Map
		wg        sync.WaitGroup
	)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	handles := make([]*etcdsem.Semaphore, workers)
	for i := range handles {
		cl, err := c.client()
		require.NoError(t, err)
		defer cl.Close()
		handles[i], err = etcdsem.New(context.Background(), cl, name, size, etcdsem.WithLease(5*time.Second),
			etcdsem.WithErrorHandler(func(err error) { t.Logf("worker %d: reported: %v", i, err) }))
		require.NoError(t, err)
		defer handles[i].Close()
	}
	for i, s := range handles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 2))
			for ctx.Err() == nil {
				n := 1 + r.Int64N(size)
				actx, cancel := context.WithTimeout(ctx, 20*time.Second)
				err := s.Acquire(actx, n)
				cancel()
				if err != nil {
					if ctx.Err() == nil {
						errs.Store(fmt.Sprintf("worker %d: Acquire(%d): %v", i, n, err), true)
					}
					continue
				}
				if o := out.Add(n); o > most.Load() {
					most.Store(o) // racy maximum, but any o > size fails below anyway
					assert.LessOrEqual(t, o, int64(size), "permits out at once")
				}
				time.Sleep(time.Duration(r.IntN(2000)) * time.Microsecond)
				out.Add(-n)
				if err := s.ReleaseErr(context.Background(), n); err != nil {
					t.Logf("worker %d: Release(%d): %v (retried in the background)", i, n, err)
				}
				ops[i].Add(1)
			}
		}()
	}
	// waitOps waits until every worker completed k more operations.
	waitOps := func(k int64, why string) {
		t.Helper()
		var base [workers]int64
		for i := range ops {
			base[i] = ops[i].Load()
		}
		deadline := time.Now().Add(30 * time.Second)
		for i := range ops {
			for ops[i].Load() < base[i]+k {
				if time.Now().After(deadline) {
					t.Fatalf("%s: worker %d completed %d of %d operations in 30s", why, i, ops[i].Load()-base[i], k)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
	}
	waitOps(5, "before the leader was stopped")
	old, err := c.leader()
	require.NoError(t, err)
	c.stop(old)
	stopped := time.Now()
	waitOps(10, "after the leader was stopped")
	now, err := c.leader()
	t.Logf("leader m%d stopped; every worker completed 10 more operations within %v; new leader m%d (%v)",
		old, time.Since(stopped).Round(time.Millisecond), now, err)
	stop()
	wg.Wait()

	errs.Range(func(k, _ any) bool {
		t.Error(k)
		return true
	})
	// Nothing lost: once every handle's pending writes are done, all
	// permits are free again, with every handle still open.
	deadline := time.Now().Add(15 * time.Second)
	for {
		avail, err := handles[0].Available(context.Background())
		if err == nil && avail == size {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Available = %d, %v; want %d once the workers stopped", avail, err, size)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for i, s := range handles {
		assert.Zero(t, s.Held(), "handle %d", i)
	}
}

// A waiter's watch requires a leader: on a member that lost it, the watch
// is canceled, and a new one refused at once. With 2 of 3 members killed,
// the waiter on the third must not re-create its watch at once, over and
// over (a load on a sick cluster), but pause, with a growing jittered
// pause, and read the queue before watching again. The count is taken over
// a window that starts once the member has had time to notice (an election
// timeout) and to cancel its watches (3 more).
func TestWatchesBackOffWithoutLeader(t *testing.T) {
	t.Parallel()
	c, err := startCluster(server.bin, t.TempDir(), 3)
	require.NoError(t, err)
	defer c.close()
	lead, err := c.leader()
	require.NoError(t, err)
	keep := (lead + 1) % 3
	cl, err := c.client(keep)
	require.NoError(t, err)
	defer cl.Close()

	ctx := context.Background()
	name := uniqueName(t)
	opts := []etcdsem.Option{etcdsem.WithLease(60 * time.Second), etcdsem.WithTimeout(time.Second)}
	holder, err := etcdsem.New(ctx, cl, name, 1, opts...)
	require.NoError(t, err)
	defer func() { _ = holder.Close() }()
	require.NoError(t, holder.Acquire(ctx, 1))
	waiter, err := etcdsem.New(ctx, cl, name, 1, opts...)
	require.NoError(t, err)
	defer func() { _ = waiter.Close() }()
	actx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- waiter.Acquire(actx, 1) }()
	settleHandles(waiter)
	require.Positive(t, waiter.Watches(), "the waiter does not watch")

	for i := range 3 {
		if i != keep {
			c.signal(i, syscall.SIGKILL)
		}
	}
	const notice, window = 5 * time.Second, 6 * time.Second
	select {
	case err := <-done:
		t.Fatalf("Acquire returned %v before the window", err)
	case <-time.After(notice):
	}
	before := waiter.Watches()
	select {
	case err := <-done:
		t.Fatalf("Acquire returned %v during the window", err)
	case <-time.After(window):
	}
	n := waiter.Watches() - before
	cancel()
	require.ErrorIs(t, await(t, done), context.Canceled)
	t.Logf("%d watches started in %v on a member without a leader", n, window)
	// Pauses grow by 50ms a failure up to 1s, less up to half as jitter,
	// and each end costs a read too: a dozen fit the window at most.
	assert.LessOrEqual(t, n, int64(12), "watches re-created without pause")
}
