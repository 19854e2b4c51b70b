package etcdsem_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/semacat/sem/etcdsem"
)

// available reads the free permits of s, failing t on error.
func available(t *testing.T, s *etcdsem.Semaphore) int64 {
	t.Helper()
	n, err := s.Available(context.Background())
	require.NoError(t, err)
	return n
}

// A waiter canceled between its grant and its report (x/sync's issue 63615,
// with the cancellation pinned where semtest's Cancel/BeforeGrant cannot
// put it: the key holds, the re-read agreed, and ctx is done before Acquire
// returns) gives the permits back and returns ctx.Err().
func TestCancelAtGrantGivesBack(t *testing.T) {
	t.Parallel()
	s := newSem(t, 2)
	require.NoError(t, s.Acquire(context.Background(), 1))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.BeforeAdmit(cancel)
	done := make(chan error, 1)
	go func() { done <- s.Acquire(ctx, 2) }()
	settleHandles(s)
	require.NoError(t, s.ReleaseErr(context.Background(), 1))
	require.ErrorIs(t, await(t, done), context.Canceled)
	assert.Zero(t, s.Held())
	assert.Equal(t, int64(2), available(t, s))
}

// An Acquire whose grant races Close fails with ErrClosed rather than
// reporting permits on a revoked lease; so does a TryAcquire.
func TestAcquireRacingClose(t *testing.T) {
	t.Parallel()
	for _, try := range []bool{false, true} {
		name := map[bool]string{false: "Acquire", true: "TryAcquire"}[try]
		t.Run(name, func(t *testing.T) {
			s, err := etcdsem.New(context.Background(), cli, uniqueName(t), 2)
			require.NoError(t, err)
			s.BeforeAdmit(func() { require.NoError(t, s.Close()) })
			if try {
				assert.False(t, s.TryAcquire(1), "TryAcquire granted on a closed handle")
			} else {
				assert.ErrorIs(t, s.Acquire(context.Background(), 1), etcdsem.ErrClosed)
			}
			assert.Zero(t, s.Held())
			assert.NoError(t, s.Close(), "a second Close")
			assert.Equal(t, int64(2), availableOf(t, s.Name(), 2))
		})
	}
}

// A waiter told by its watch that it fits reads its place again before
// reporting the grant: here its lease was revoked (as by expiry) between
// the event and the report, so its key is gone and it must not report
// holding permits.
func TestStaleEventIsReread(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	holder := newSem(t, 1)
	waiter, err := etcdsem.New(context.Background(), cli, holder.Name(), 1)
	require.NoError(t, err)
	defer waiter.Close()
	require.NoError(t, holder.Acquire(ctx, 1))
	var confirmed atomic.Bool
	waiter.BeforeConfirm(func(string) {
		confirmed.Store(true)
		_, err := cli.Revoke(ctx, waiter.Lease())
		assert.NoError(t, err)
	})
	done := make(chan error, 1)
	go func() { done <- waiter.Acquire(ctx, 1) }()
	settleHandles(holder, waiter)
	holder.Release(1)
	err = await(t, done)
	require.True(t, confirmed.Load(), "the watch never said the key fits; the test proved nothing")
	require.ErrorIs(t, err, etcdsem.ErrLeaseLost)
	assert.Zero(t, waiter.Held())
	assert.Equal(t, int64(1), available(t, holder))
}

// Releasing grants whose keys expired with the lease, before the handle
// noticed, reports ErrLeaseLost on every path: a shrink, a delete, a
// Permit, and Release through the error handler.
func TestReleaseAfterExpiryIsLeaseLost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var mu sync.Mutex
	var reported []error
	s := newSem(t, 4, etcdsem.WithErrorHandler(func(err error) {
		mu.Lock()
		defer mu.Unlock()
		reported = append(reported, err)
	}))
	s.PauseKeepAlive(true) // the handle learns of the loss only from its writes
	p, err := s.AcquirePermit(ctx, 1)
	require.NoError(t, err)
	require.NoError(t, s.Acquire(ctx, 2))
	require.NoError(t, s.Acquire(ctx, 1))
	_, err = cli.Revoke(ctx, s.Lease()) // as etcd does when the TTL runs out
	require.NoError(t, err)
	select {
	case <-p.Done():
		t.Fatal("Done closed: the test meant the handle not to know yet")
	default:
	}

	assert.ErrorIs(t, s.ReleaseErr(ctx, 1), etcdsem.ErrLeaseLost, "shrinking an expired key")
	assert.ErrorIs(t, s.ReleaseErr(ctx, 1), etcdsem.ErrLeaseLost, "deleting an expired key")
	s.Release(1)
	mu.Lock()
	require.Len(t, reported, 1, "Release's error reaches the handler")
	assert.ErrorIs(t, reported[0], etcdsem.ErrLeaseLost)
	mu.Unlock()
	err = p.Release(ctx)
	assert.ErrorIs(t, err, etcdsem.ErrLeaseLost, "releasing an expired Permit")
	assert.Contains(t, err.Error(), "was already deleted")
	assert.Zero(t, s.Held())
}

// A delete whose reply was lost, and which is retried, finds its key gone:
// its own first attempt deleted it, on a lease still trusted, so the
// release succeeded and is not reported as a lost lease.
func TestRetriedReleaseIsNotLeaseLost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSem(t, 2)
	require.NoError(t, s.Acquire(ctx, 1))
	var lost atomic.Int64
	s.LoseReply(func() error {
		if lost.Add(1) == 1 {
			return status.Error(codes.Unavailable, "injected: the reply was lost")
		}
		return nil
	})
	require.NoError(t, s.ReleaseErr(ctx, 1))
	require.Equal(t, int64(2), lost.Load(), "the delete was not retried; the test proved nothing")
	assert.Equal(t, int64(2), available(t, s))
}

// A caller whose context ends while its enqueue is on the wire waits for
// the enqueue's outcome and undoes it, rather than abandon a put that could
// land after the delete meant to undo it (a key holding permits until a
// sweep found it: the flake of semtest's Stress rows under load). No write
// is left of unknown outcome, so the handle schedules no sweep, and every
// permit is free at once.
func TestCanceledEnqueueIsUndone(t *testing.T) {
	t.Parallel()
	s := newSem(t, 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sent atomic.Int64
	s.OnEnqueue(func(string) error {
		sent.Add(1)
		cancel() // the caller gives up as its enqueue leaves
		return nil
	})
	require.ErrorIs(t, s.Acquire(ctx, 1), context.Canceled)
	require.Equal(t, int64(1), sent.Load(), "the enqueue was not sent once; the test proved nothing")
	assert.False(t, s.SweepScheduled(), "the canceled enqueue's outcome was left unknown")
	assert.Equal(t, int64(2), available(t, s))
}

// An enqueue whose outcome was unknown can land after the delete meant to
// cancel it, leaving a key on the handle's lease that nobody tracks. The
// handle sweeps its keys after an unknown outcome and deletes it, and only
// it.
func TestStrayKeyIsSwept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const lease = 2 * time.Second // keep-alives, and so sweeps, every lease/3
	s := newSem(t, 3, etcdsem.WithLease(lease))
	require.NoError(t, s.Acquire(ctx, 1))
	var stray string
	s.OnEnqueue(func(key string) error {
		stray = key
		return status.Error(codes.Unavailable, "injected: the request may or may not have landed")
	})
	actx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, s.Acquire(actx, 2), context.DeadlineExceeded)
	s.OnEnqueue(nil)
	require.NotEmpty(t, stray)
	// Acquire gave up and left the key's deletion to the background.
	require.Eventually(t, func() bool { return !s.Tracked(stray) }, 5*time.Second, 10*time.Millisecond,
		"the key Acquire gave up on was never deleted")

	// The put lands now, after the key was deleted and Acquire gave up.
	_, err := cli.Put(ctx, stray, "2", clientv3.WithLease(s.Lease()))
	require.NoError(t, err)

	landed := time.Now()
	deadline := landed.Add(3 * time.Second) // several sweeps, well before the periodic one
	for {
		resp, err := cli.Get(ctx, stray)
		require.NoError(t, err)
		if len(resp.Kvs) == 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "the stray key was not swept within 3s")
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("stray key swept %v after it landed", time.Since(landed).Round(time.Millisecond))
	assert.Equal(t, int64(1), s.Held(), "the tracked key survives the sweep")
	assert.Equal(t, int64(2), available(t, s))
	s.Release(1)
}

// When the holder's connection to etcd is cut, Permit.Done closes before
// another handle can be granted the same permits.
func TestDoneClosesBeforeOthersGetIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	px, cut := proxiedClient(t)
	const lease = 2 * time.Second
	holder, err := etcdsem.New(context.Background(), cut, uniqueName(t), 1, etcdsem.WithLease(lease), etcdsem.WithTimeout(time.Second))
	require.NoError(t, err)
	other, err := etcdsem.New(context.Background(), cli, holder.Name(), 1)
	require.NoError(t, err)
	defer other.Close()

	p, err := holder.AcquirePermit(ctx, 1)
	require.NoError(t, err)
	require.NoError(t, p.Err())
	var order atomic.Int64
	var doneAt, grantedAt atomic.Int64
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		<-p.Done()
		doneAt.Store(order.Add(1))
	}()
	granted := make(chan error, 1)
	go func() {
		actx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		err := other.Acquire(actx, 1)
		grantedAt.Store(order.Add(1))
		granted <- err
	}()
	settleHandles(other)

	px.Cut()
	cutAt := time.Now()
	require.NoError(t, await(t, granted))
	<-watched
	t.Logf("after the cut: Done closed at step %d, the other handle was granted at step %d, %v after the cut; lease %v, margin %v",
		doneAt.Load(), grantedAt.Load(), time.Since(cutAt).Round(time.Millisecond), lease, etcdsem.SafetyMargin(lease))
	assert.Less(t, doneAt.Load(), grantedAt.Load(), "another handle was granted the permits before the holder's Done closed")
	assert.ErrorIs(t, p.Err(), etcdsem.ErrLeaseLost)
	assert.ErrorIs(t, p.Release(ctx), etcdsem.ErrLeaseLost, "releasing after the lease was lost")
	assert.ErrorIs(t, holder.Acquire(ctx, 1), etcdsem.ErrLeaseLost)
	err = holder.Close()
	if err != nil {
		assert.ErrorIs(t, err, etcdsem.ErrUnavailable, "Close cannot reach the server to revoke")
	}
	other.Release(1)
}

func TestSentinelErrors(t *testing.T) {
	t.Parallel()
	for _, err := range []error{etcdsem.ErrLeaseLost, etcdsem.ErrSizeMismatch, etcdsem.ErrClosed, etcdsem.ErrUnavailable} {
		assert.True(t, strings.HasPrefix(err.Error(), "etcdsem: "), "%q", err)
	}
	// A server that cannot be reached: New fails with ErrUnavailable.
	px, c := proxiedClient(t)
	px.Cut()
	_, err := etcdsem.New(context.Background(), c, uniqueName(t), 1, etcdsem.WithTimeout(300*time.Millisecond))
	require.ErrorIs(t, err, etcdsem.ErrUnavailable)
	assert.ErrorContains(t, err, "etcdsem: New(")
}

// With etcd unreachable, Acquire returns ctx's error by ctx's deadline plus
// at most one timeout (the deletion of a key whose put may have landed).
func TestAcquireKeepsItsDeadline(t *testing.T) {
	t.Parallel()
	px, c := proxiedClient(t)
	const timeout, wait = 500 * time.Millisecond, 300 * time.Millisecond
	s, err := etcdsem.New(context.Background(), c, uniqueName(t), 1, etcdsem.WithLease(5*time.Second), etcdsem.WithTimeout(timeout))
	require.NoError(t, err)
	px.Cut()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	start := time.Now()
	err = s.Acquire(ctx, 1)
	took := time.Since(start)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	t.Logf("Acquire returned %v after it started (deadline %v, timeout %v)", took.Round(time.Millisecond), wait, timeout)
	assert.Less(t, took, wait+timeout+time.Second, "Acquire outlived its deadline by more than one timeout")
	if err := s.Close(); err != nil {
		assert.ErrorIs(t, err, etcdsem.ErrUnavailable)
	}
}

// A holder whose keep-alives stop (a paused process, a stalled loop) sees
// Done close while the server still keeps its lease and key: before anyone
// else can be admitted.
func TestDoneClosesWhileServerStillHolds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSem(t, 1, etcdsem.WithLease(2*time.Second))
	p, err := s.AcquirePermit(ctx, 1)
	require.NoError(t, err)
	s.PauseKeepAlive(true)
	stopped := time.Now()
	select {
	case <-p.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("Done did not close in 20s without keep-alives")
	}
	closedAfter := time.Since(stopped)
	ttl, err := cli.TimeToLive(ctx, s.Lease())
	require.NoError(t, err)
	t.Logf("Done closed %v after the keep-alives stopped; the server's lease had %ds (whole seconds) left",
		closedAfter.Round(time.Millisecond), ttl.TTL)
	assert.GreaterOrEqual(t, ttl.TTL, int64(0), "the server's lease had expired (TTL -1) before Done closed")
	resp, err := cli.Get(ctx, p.Key())
	require.NoError(t, err)
	assert.Len(t, resp.Kvs, 1, "the permit's key was gone before Done closed")
	assert.ErrorIs(t, p.Err(), etcdsem.ErrLeaseLost)
	assert.ErrorIs(t, s.Acquire(ctx, 1), etcdsem.ErrLeaseLost)
	assert.False(t, s.TryAcquire(1))
	assert.ErrorIs(t, p.Release(ctx), etcdsem.ErrLeaseLost, "a release the handle cannot vouch for")
}

// A waiter whose own key and every key ahead of it are deleted at once
// (here by a tool, in one transaction) reads an empty queue, and fails with
// ErrLeaseLost: its key is gone.
func TestWaiterFindsQueueEmptied(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	holder := newSem(t, 1)
	waiter := otherHandle(t, holder)
	p, err := holder.AcquirePermit(ctx, 1)
	require.NoError(t, err)
	var key atomic.Value
	waiter.OnEnqueue(func(k string) error { key.Store(k); return nil })
	done := acquireWithin(waiter, 1, 20*time.Second)
	settleQueued(t, holder, 2, holder, waiter)
	_, err = cli.Txn(ctx).Then(clientv3.OpDelete(p.Key()), clientv3.OpDelete(key.Load().(string))).Commit()
	require.NoError(t, err)
	require.ErrorIs(t, await(t, done), etcdsem.ErrLeaseLost)
	require.ErrorIs(t, p.Release(ctx), etcdsem.ErrLeaseLost)
}
