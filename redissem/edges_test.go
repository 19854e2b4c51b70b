package redissem_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/redissem"
)

// gate is a go-redis hook that can fail or hold back the next script call
// of a client, to stand for a lost or a slow round trip.
type gate struct {
	fail    atomic.Bool   // fail the next script call
	hold    atomic.Bool   // block the next script call until open is closed
	fake    atomic.Bool   // and then answer it "queued" without sending it
	blackho atomic.Bool   // block every call until its ctx is done or restore is closed
	hit     chan struct{} // receives when a fail or hold took effect
	open    chan struct{}
	restore chan struct{}
	ended   chan time.Time // when the first blackholed call gave up
	// lastScript is when the latest script call that Redis answered
	// without error was sent (unix nanoseconds): the start of the
	// validity its lease grants.
	lastScript atomic.Int64
}

func newGate() *gate {
	return &gate{hit: make(chan struct{}, 1), open: make(chan struct{}), restore: make(chan struct{}),
		ended: make(chan time.Time, 1)}
}

func (g *gate) DialHook(next redis.DialHook) redis.DialHook { return next }

func (g *gate) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if g.blackho.Load() {
			select {
			case <-g.restore:
				return next(ctx, cmd)
			case <-ctx.Done():
			}
			select {
			case g.ended <- time.Now():
			default:
			}
			cmd.SetErr(ctx.Err())
			return ctx.Err()
		}
		script := strings.HasPrefix(cmd.Name(), "eval")
		if script && g.fail.CompareAndSwap(true, false) {
			g.hit <- struct{}{}
			err := errors.New("injected: connection reset by peer")
			cmd.SetErr(err)
			return err
		} else if script && g.hold.CompareAndSwap(true, false) {
			g.hit <- struct{}{}
			<-g.open
			if g.fake.Load() {
				cmd.(*redis.Cmd).SetVal([]any{int64(0), int64(0), int64(2)}) // queued, size 2
				return nil
			}
		}
		sent := time.Now()
		err := next(ctx, cmd)
		if script && err == nil {
			g.lastScript.Store(sent.UnixNano())
		}
		return err
	}
}

func (g *gate) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// otherHandle returns another handle, on its own client, on the semaphore
// of s; it is closed when t ends.
func otherHandle(t *testing.T, s *redissem.Semaphore, opts ...redissem.Option) *redissem.Semaphore {
	t.Helper()
	o, err := redissem.New(context.Background(), newClient(t, shared.Addr()), s.Name(), s.Size(), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = o.Close() })
	return o
}

// queued returns a function reporting whether Redis holds n waiters in s's
// queue.
func queued(t *testing.T, rdb *redis.Client, s *redissem.Semaphore, n int64) func() bool {
	return func() bool {
		c, err := rdb.ZCard(context.Background(), "redissem:{"+s.Name()+"}:queue").Result()
		require.NoError(t, err)
		return c == n
	}
}

// Tokens keep increasing when Redis restarts from an RDB snapshot older than
// the last grants: the rolled-back counter is lifted above them by the
// server's clock.
func TestTokensIncreaseAcrossRDBRestart(t *testing.T) {
	t.Parallel()
	srv, err := startRedis(t.TempDir(), false)
	require.NoError(t, err)
	defer srv.Kill()
	rdb := newClient(t, srv.Addr())
	s := newSem(t, rdb, 1, redissem.WithTimeout(500*time.Millisecond))
	ctx := context.Background()
	cycle := func() int64 {
		p, err := s.AcquirePermit(ctx, 1)
		require.NoError(t, err)
		require.NoError(t, p.Release(ctx))
		return p.Token()
	}
	for range 3 {
		cycle()
	}
	require.NoError(t, rdb.BgSave(ctx).Err())
	waitFor(t, "BGSAVE to finish", func() bool {
		info := rdb.Info(ctx, "persistence").Val()
		return strings.Contains(info, "rdb_bgsave_in_progress:0") && strings.Contains(info, "rdb_last_bgsave_status:ok")
	})
	var last int64
	for range 5 {
		last = cycle()
	}
	srv.Kill()
	require.NoError(t, srv.Restart())
	var p *redissem.Permit
	waitFor(t, "an Acquire to succeed after the restart", func() bool {
		p, err = s.AcquirePermit(ctx, 1)
		return err == nil
	})
	defer p.Release(ctx)
	assert.Greater(t, p.Token(), last, "a token issued after the restart is not above those issued before it")
}

// A holder cut off from Redis (its requests go unanswered) sees Done close
// before another handle is granted its permits, not earlier than its lease allows, and its Err wraps
// ErrLeaseLost. Releasing it then reports ErrLeaseLost too.
// The lower bound on Done counts from when the holder's last answered
// refresh was sent, not from the cut: on a loaded machine that refresh can
// run late, and the lease it bought then ends sooner after the cut.
func TestDoneClosesBeforeOthersAreGranted(t *testing.T) {
	t.Parallel()
	const lease = 3 * time.Second
	cut := newGate()
	holder := newSem(t, newClient(t, shared.Addr(), cut), 1, redissem.WithLease(lease))
	other := otherHandle(t, holder, redissem.WithLease(lease))
	ctx := context.Background()

	p, err := holder.AcquirePermit(ctx, 1)
	require.NoError(t, err)
	type grantSeen struct {
		at       time.Time
		doneSeen bool // Done was already closed when the other handle got the grant
	}
	granted := make(chan grantSeen, 1)
	go func() {
		assert.NoError(t, other.Acquire(ctx, 1))
		g := grantSeen{at: time.Now()}
		select {
		case <-p.Done():
			g.doneSeen = true
		default:
		}
		granted <- g
	}()
	select {
	case <-p.Done():
		t.Fatal("Done closed while the refreshes got through")
	case <-time.After(2 * lease):
	}
	require.NoError(t, p.Err())

	cutAt := time.Now()
	cut.blackho.Store(true) // requests go unanswered; the default timeout is longer than the lease
	select {
	case <-p.Done():
	case <-time.After(3 * lease):
	}
	doneAt := time.Now()
	g := <-granted
	require.True(t, g.doneSeen, "another handle was granted the permit %v after the cut, while Done was still open",
		g.at.Sub(cutAt))
	require.ErrorIs(t, p.Err(), redissem.ErrLeaseLost)
	t.Logf("Done closed %v after the cut, the other handle was granted %v after it (lease %v)",
		doneAt.Sub(cutAt).Round(time.Millisecond), g.at.Sub(cutAt).Round(time.Millisecond), lease)
	// The holder stamps a refresh before the gate sees it go out: on a
	// loaded machine the two can lie far apart, so the bound allows a
	// tenth of the lease for it, on top of the holder's own margin (a
	// tenth and a hundredth of the lease).
	lastRefresh := time.Unix(0, cut.lastScript.Load())
	assert.Greater(t, doneAt.Sub(lastRefresh), lease-lease/10-lease/100-lease/10,
		"Done closed earlier than the lease of the last refresh Redis answered (sent %v before the cut) allows",
		cutAt.Sub(lastRefresh).Round(time.Millisecond))
	cut.blackho.Store(false)
	close(cut.restore)
	require.ErrorIs(t, p.Release(ctx), redissem.ErrLeaseLost)
	other.Release(1)
}

// A refresh stuck in its round trip (here it never returns: the gate holds
// it regardless of its deadline) does not hold back Done: it closes at the
// end of the grant's validity, not before, and Err wraps ErrLeaseLost.
// That the expiry timer fires exactly on time is TestExpiryTimerClosesDoneOnTime's
// to show, in a bubble; on a real clock and a loaded machine the timer's
// goroutine may run late, so this test waits up to a second lease, which
// a Done held back by the stuck refresh (it never returns) still misses.
func TestDoneClosesWhileRefreshIsStuck(t *testing.T) {
	t.Parallel()
	const lease = 1200 * time.Millisecond
	const margin = lease/10 + lease/100
	stuck := newGate()
	s := newSem(t, newClient(t, shared.Addr(), stuck), 1, redissem.WithLease(lease))
	ctx := context.Background()

	sent := time.Now()
	p, err := s.AcquirePermit(ctx, 1)
	require.NoError(t, err)
	stuck.hold.Store(true)
	<-stuck.hit // the first refresh, a third of the lease after New, is stuck
	select {
	case <-p.Done():
	case <-time.After(time.Until(sent.Add(2 * lease))):
		close(stuck.open)
		t.Fatalf("Done was still open two leases after the Acquire was sent, with the refresh stuck")
	}
	doneAt := time.Now()
	require.ErrorIs(t, p.Err(), redissem.ErrLeaseLost)
	assert.GreaterOrEqual(t, doneAt.Sub(sent), lease-margin, "Done closed before the grant's validity ended")
	t.Logf("Done closed %v after the Acquire was sent (validity %v, lease %v)",
		doneAt.Sub(sent).Round(time.Millisecond), lease-margin, lease)
	close(stuck.open)
	_ = p.Release(ctx) // whether Redis reaped the grant yet is not the point here
}

// Releasing grants whose lease expired in Redis reports ErrLeaseLost,
// through ReleaseErr, the error handler of Release, and Permit.Release.
func TestReleaseAfterExpiryReportsLeaseLost(t *testing.T) {
	t.Parallel()
	const lease = 300 * time.Millisecond
	var errs errorsCollector
	holder := newSem(t, newClient(t, shared.Addr()), 3, redissem.WithLease(lease),
		redissem.WithRefreshPaused(func() bool { return true }), redissem.WithErrorHandler(errs.add))
	other := otherHandle(t, holder, redissem.WithLease(lease))
	ctx := context.Background()
	require.NoError(t, holder.Acquire(ctx, 1))
	require.NoError(t, holder.Acquire(ctx, 1))
	p, err := holder.AcquirePermit(ctx, 1)
	require.NoError(t, err)

	ctx5, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	require.NoError(t, other.Acquire(ctx5, 3), "the unrefreshed grants did not expire")

	err = holder.ReleaseErr(ctx, 1)
	require.ErrorIs(t, err, redissem.ErrLeaseLost)
	assert.Contains(t, err.Error(), "redissem: ReleaseErr(1) on \""+holder.Name()+"\"")
	holder.Release(1)
	var lost []error
	for _, e := range errs.all() {
		if errors.Is(e, redissem.ErrLeaseLost) && strings.Contains(e.Error(), "Release(1)") {
			lost = append(lost, e)
		}
	}
	assert.Len(t, lost, 1, "Release's ErrLeaseLost reached the error handler: %v", errs.all())
	require.ErrorIs(t, p.Release(ctx), redissem.ErrLeaseLost)
	assert.Equal(t, int64(0), available(t, other), "the other handle's grant is untouched")
	other.Release(3)
}

// When Redis loses some of the semaphore's keys (evicted by an allkeys-*
// maxmemory policy, or deleted), nobody is admitted beside the holders that
// still believe they hold: Acquire fails with ErrStateLost, the holder's
// Done closes with ErrLeaseLost at its next refresh, and grants resume once
// the leases handed out before have run out.
func TestLostKeysRefuseGrants(t *testing.T) {
	t.Parallel()
	const lease = 600 * time.Millisecond
	for _, key := range []string{"meta", "holders", "recs"} {
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			rdb := newClient(t, shared.Addr())
			holder := newSem(t, rdb, 2, redissem.WithLease(lease))
			other := otherHandle(t, holder, redissem.WithLease(lease))
			ctx := context.Background()
			p, err := holder.AcquirePermit(ctx, 2)
			require.NoError(t, err)

			require.NoError(t, rdb.Del(ctx, "redissem:{"+holder.Name()+"}:"+key).Err())
			lostAt := time.Now()
			assert.False(t, other.TryAcquire(1))
			ctx5, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			err = other.Acquire(ctx5, 1)
			require.ErrorIs(t, err, redissem.ErrStateLost)
			assert.Contains(t, err.Error(), "evicted or deleted")
			select {
			case <-p.Done():
				require.ErrorIs(t, p.Err(), redissem.ErrLeaseLost)
			case <-time.After(2 * lease):
				t.Fatal("the holder's Done did not close after its keys were lost")
			}
			require.ErrorIs(t, p.Release(ctx), redissem.ErrLeaseLost)

			waitFor(t, "grants to resume", func() bool { return other.TryAcquire(2) })
			assert.Greater(t, time.Since(lostAt), lease/2, "grants resumed before the holder's lease could have run out")
			other.Release(2)
		})
	}
}

// The same under real memory pressure: a server with a small maxmemory and
// allkeys-random evicts some of the semaphore's keys while the test fills
// it, and nobody is admitted beside the holder.
func TestEvictedKeysRefuseGrants(t *testing.T) {
	t.Parallel()
	srv, err := startRedis(t.TempDir(), false, "--maxmemory", "2mb", "--maxmemory-policy", "allkeys-random")
	require.NoError(t, err)
	defer srv.Kill()
	rdb := newClient(t, srv.Addr())
	holder := newSem(t, rdb, 1)
	other, err := redissem.New(context.Background(), newClient(t, srv.Addr()), holder.Name(), 1)
	require.NoError(t, err)
	defer other.Close()
	ctx := context.Background()
	require.NoError(t, holder.Acquire(ctx, 1))
	prefix := "redissem:{" + holder.Name() + "}:"
	filler := strings.Repeat("x", 1000)
	for i := 0; rdb.Exists(ctx, prefix+"meta", prefix+"holders", prefix+"recs").Val() == 3; i++ {
		require.Less(t, i, 100000, "the semaphore's keys were never evicted")
		require.NoError(t, rdb.Set(ctx, "fill:"+strconv.Itoa(i), filler, 0).Err())
	}
	assert.False(t, other.TryAcquire(1), "admitted beside the holder after an eviction")
	ctx5, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	require.ErrorIs(t, other.Acquire(ctx5, 1), redissem.ErrStateLost)
	holder.Release(1)
}

// A refresh of the waiter's entry that fails once does not cost the waiter
// its place in line: it is granted before a waiter that queued after the
// failure.
func TestFailedPollKeepsPlace(t *testing.T) {
	t.Parallel()
	g := newGate()
	rdb := newClient(t, shared.Addr(), g)
	first := newSem(t, rdb, 1, redissem.WithLease(3*time.Second))
	holder := otherHandle(t, first)
	second := otherHandle(t, first)
	ctx := context.Background()
	require.True(t, holder.TryAcquire(1))

	firstDone := make(chan error, 1)
	go func() { firstDone <- first.Acquire(ctx, 1) }()
	waitFor(t, "the first waiter to queue", queued(t, rdb, first, 1))
	g.fail.Store(true)
	<-g.hit // the next refresh of the first waiter's entry failed
	secondDone := make(chan error, 1)
	go func() { secondDone <- second.Acquire(ctx, 1) }()
	waitFor(t, "the second waiter to queue behind the first", queued(t, rdb, first, 2))

	holder.Release(1)
	require.NoError(t, <-firstDone, "the waiter whose entry's refresh failed lost its place")
	select {
	case err := <-secondDone:
		t.Fatalf("the second waiter was served before the first released: %v", err)
	default:
	}
	first.Release(1)
	require.NoError(t, <-secondDone)
	second.Release(1)
}

// Acquire's round trips end at its ctx's deadline: with Redis silent, it
// returns within the deadline plus the handle's timeout, which bounds the
// withdrawal that follows.
func TestAcquireRespectsDeadline(t *testing.T) {
	t.Parallel()
	const timeout, deadline = time.Second, 200 * time.Millisecond
	g := newGate()
	s := newSem(t, newClient(t, shared.Addr(), g), 1, redissem.WithTimeout(timeout))
	g.blackho.Store(true)
	defer g.blackho.Store(false)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	err := s.Acquire(ctx, 1)
	elapsed := time.Since(start)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	request := (<-g.ended).Sub(start)
	t.Logf("the request gave up after %v, Acquire returned after %v (deadline %v, timeout %v)",
		request.Round(time.Millisecond), elapsed.Round(time.Millisecond), deadline, timeout)
	assert.Less(t, request, deadline+timeout/4, "the request outlived Acquire's deadline")
	assert.Less(t, elapsed, deadline+timeout+timeout/4, "Acquire returned later than its deadline plus one timeout")
}

// Regression (the cancellation that happens before the grant wins): size 2,
// one permit held, Acquire(ctx, 2) waits, its ctx is canceled and the
// permit released at once. Acquire returns context.Canceled and both
// permits are free afterwards.
func TestCancelRacingGrant(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, shared.Addr())
	holder := newSem(t, rdb, 2)
	waiter := otherHandle(t, holder)
	for range 10 {
		cancel, done := waitBehind(t, rdb, holder, waiter)
		cancel()
		holder.Release(1)
		canceledAndFree(t, done, holder)
	}
}

// waitBehind takes 1 of holder's 2 permits, and returns once waiter's
// Acquire(ctx, 2) is queued, with ctx's cancel and Acquire's outcome.
func waitBehind(t *testing.T, rdb *redis.Client, holder, waiter *redissem.Semaphore) (context.CancelFunc, <-chan error) {
	t.Helper()
	require.True(t, holder.TryAcquire(1))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- waiter.Acquire(ctx, 2) }()
	waitFor(t, "the waiter to queue", queued(t, rdb, holder, 1))
	return cancel, done
}

// canceledAndFree checks that the canceled Acquire returned
// context.Canceled and left both permits free.
func canceledAndFree(t *testing.T, done <-chan error, holder *redissem.Semaphore) {
	t.Helper()
	require.ErrorIs(t, <-done, context.Canceled)
	assert.Equal(t, int64(2), available(t, holder))
}

// The same race, forced: the handle's refresh of the waiter's queue entry
// is on its way when the ctx is canceled and the permit released, so Redis
// grants the waiter (by the release, and the refresh would report it)
// after its ctx is done. It must give the grant back and return
// context.Canceled.
func TestCancelRacingGrantForced(t *testing.T) {
	t.Parallel()
	g := newGate()
	wrdb := newClient(t, shared.Addr(), g)
	rdb := newClient(t, shared.Addr())
	holder := newSem(t, rdb, 2)
	waiter, err := redissem.New(context.Background(), wrdb, holder.Name(), 2)
	require.NoError(t, err)
	defer waiter.Close()
	cancel, done := waitBehind(t, rdb, holder, waiter)
	g.hold.Store(true)
	<-g.hit // the refresh of the waiter's entry is held back
	cancel()
	holder.Release(1)
	close(g.open)
	canceledAndFree(t, done, holder)
}

// The same race, with the grant's notification: the waiter learns of its
// grant from pub/sub only after its ctx is done. A malformed notification
// makes it ask Redis again, and that request is held back while the permit
// is released and the ctx canceled, then answered "queued"; so it finds
// both the grant's notification and ctx.Done ready, and Go's select picks
// either. Whichever it picks, it must give the grant back and return
// context.Canceled. Twenty rounds pick the notification at least once but
// with probability 2^-20. The handles' refreshes are spaced out of the way.
func TestCancelRacingNotification(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, shared.Addr())
	quiet := []redissem.Option{redissem.WithLease(30 * time.Second), redissem.WithPollInterval(10 * time.Second)}
	holder := newSem(t, rdb, 2, quiet...)
	ctx := context.Background()
	prefix := redissem.DefaultPrefix + "{" + holder.Name() + "}:"
	for range 20 {
		g := newGate()
		waiter, err := redissem.New(context.Background(), newClient(t, shared.Addr(), g), holder.Name(), 2, quiet...)
		require.NoError(t, err)
		cancel, done := waitBehind(t, rdb, holder, waiter)
		id := rdb.ZRange(ctx, prefix+"queue", 0, 0).Val()[0]
		handle, _, _ := strings.Cut(id, "/")
		g.fake.Store(true)
		g.hold.Store(true)
		require.NoError(t, rdb.Publish(ctx, prefix+"wake:"+handle, id+" malformed").Err())
		<-g.hit
		holder.Release(1)
		waitFor(t, "the grant", func() bool { return available(t, holder) == 0 })
		cancel()
		close(g.open)
		canceledAndFree(t, done, holder)
		require.NoError(t, waiter.Close())
	}
}

// A notification that is not a token makes the waiter ask Redis, and keeps
// it on its handle's books: the grant that comes later still reaches it.
func TestMalformedNotificationKeepsWaiter(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, shared.Addr())
	ctx := context.Background()
	holder := newSem(t, rdb, 1)
	waiter := otherHandle(t, holder, redissem.WithLease(30*time.Second), redissem.WithPollInterval(10*time.Second))
	require.True(t, holder.TryAcquire(1))
	done := acquireWithin(waiter, 1, 5*time.Second)
	waitFor(t, "the waiter to queue", queued(t, rdb, holder, 1))
	prefix := redissem.DefaultPrefix + "{" + holder.Name() + "}:"
	id := rdb.ZRange(ctx, prefix+"queue", 0, 0).Val()[0]
	handle, _, _ := strings.Cut(id, "/")
	require.NoError(t, rdb.Publish(ctx, prefix+"wake:"+handle, id+" garbage").Err())
	holder.Release(1)
	require.NoError(t, <-done, "the grant never reached the waiter")
	waiter.Release(1)
}
