package redissem_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem"
	"github.com/semacat/sem/redissem"
	"github.com/semacat/sem/semtest"
)

var (
	_ sem.Semaphore = (*redissem.Semaphore)(nil)
	_ sem.Closer    = (*redissem.Semaphore)(nil)
	_ sem.Observer  = (*redissem.Semaphore)(nil)
	_ sem.Resizer   = (*redissem.Semaphore)(nil)
)

// counter is a go-redis hook that counts round trips and the commands in
// flight.
type counter struct {
	trips    atomic.Int64
	inflight atomic.Int64
}

func (c *counter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *counter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.trips.Add(1)
		c.inflight.Add(1)
		defer c.inflight.Add(-1)
		return next(ctx, cmd)
	}
}

func (c *counter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.trips.Add(1)
		c.inflight.Add(1)
		defer c.inflight.Add(-1)
		return next(ctx, cmds)
	}
}

// settle waits until the round trips the test started have finished: at
// least a short while, then until nothing is in flight twice in a row.
func (c *counter) settle() {
	time.Sleep(30 * time.Millisecond)
	for quiet := 0; quiet < 2; {
		time.Sleep(10 * time.Millisecond)
		if c.inflight.Load() == 0 {
			quiet++
		} else {
			quiet = 0
		}
	}
}

// acquireWithin starts s.Acquire(n) bounded by d and returns its outcome.
func acquireWithin(s *redissem.Semaphore, n int64, d time.Duration) <-chan error {
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		done <- s.Acquire(ctx, n)
	}()
	return done
}

// mustSession returns a Session on rdb, failing the test if it cannot be
// opened. The test closes it.
func mustSession(t testing.TB, rdb redis.UniversalClient) *redissem.Session {
	t.Helper()
	ss, err := redissem.NewSession(context.Background(), rdb)
	require.NoError(t, err)
	return ss
}

// newSem returns a handle on a fresh semaphore, closed when t ends.
func newSem(t testing.TB, rdb redis.UniversalClient, size int64, opts ...redissem.Option) *redissem.Semaphore {
	t.Helper()
	s := newNamed(t, rdb, uniqueName(t), size, opts...)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// newNamed is a test's setup of a handle: it retries New for up to 10s
// while Redis is unreachable within the handle's timeout. A test that sets
// a short timeout for its faults' sake would otherwise fail its setup when
// a loaded machine delays a dial past that timeout, as CI saw with 300ms.
// The tests of New's own errors call New directly.
func newNamed(t testing.TB, rdb redis.UniversalClient, name string, size int64, opts ...redissem.Option) *redissem.Semaphore {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := redissem.New(context.Background(), rdb, name, size, opts...)
		if err == nil || !errors.Is(err, redissem.ErrUnavailable) || time.Now().After(deadline) {
			require.NoError(t, err)
			return s
		}
		t.Logf("setup: %v; retrying", err)
	}
}

// Not parallel: semtest times its rows in ticks of real time, and a serial
// test runs alone, before the parallel ones start.
func TestConformance(t *testing.T) {
	c := new(counter)
	rdb := newClient(t, shared.Addr(), c)
	newSem := func(size int64) sem.Semaphore {
		s, err := redissem.New(context.Background(), rdb, uniqueName(t), size, redissem.WithLease(3*time.Second))
		if err != nil {
			panic(err)
		}
		t.Cleanup(func() { assert.NoError(t, s.Close()) })
		return s
	}
	semtest.Run(t, newSem, semtest.Guarantees{FIFO: true, NoStarvation: true, NoBarging: true},
		semtest.WithSettle(c.settle), semtest.WithTick(250*time.Millisecond), semtest.WithStress(8, 100))
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	c := new(counter)
	rdb := newClient(t, shared.Addr(), c)
	assert.PanicsWithValue(t, "redissem: New(0): size must be at least 1", func() { _, _ = redissem.New(context.Background(), rdb, "x", 0) })
	s := newSem(t, rdb, 2)
	assert.PanicsWithValue(t, "redissem: Acquire(-2): negative weight",
		func() { _ = s.Acquire(context.Background(), -2) })
	assert.PanicsWithValue(t, "redissem: Release(1): released more than held (0 held)", func() { s.Release(1) })

	// The first run of a script on a server that has not cached it costs
	// one more round trip (EVALSHA is refused, EVAL follows): run the
	// request script once before counting, so that the count does not
	// depend on which test reached the server first.
	require.True(t, s.TryAcquire(1))
	s.Release(1)

	before := c.trips.Load()
	err := s.Acquire(context.Background(), 3)
	require.ErrorIs(t, err, sem.ErrExceedsSize)
	assert.EqualError(t, err, "redissem: Acquire(3) on size 2: sem: request exceeds semaphore size")
	assert.False(t, s.TryAcquire(3))
	assert.Equal(t, before+2, c.trips.Load(), "a request beyond the size costs the one round trip in which Redis checks the size")
	assert.Equal(t, int64(2), available(t, s), "a request beyond the size leaves nothing behind")
}

func TestSizeIsRecorded(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, shared.Addr())
	s := newSem(t, rdb, 3)
	_, err := redissem.New(context.Background(), rdb, s.Name(), 5)
	require.ErrorIs(t, err, redissem.ErrSizeMismatch)
	assert.Contains(t, err.Error(), "has size 3 in Redis, this handle expects 5")
	same, err := redissem.New(context.Background(), rdb, s.Name(), 3)
	require.NoError(t, err)
	require.NoError(t, same.Close())
}

func TestSharedBetweenHandles(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, shared.Addr())
	a := newSem(t, rdb, 3)
	b, err := redissem.New(context.Background(), rdb, a.Name(), 3)
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, a.Acquire(context.Background(), 2))
	assert.Equal(t, int64(1), available(t, b))
	assert.False(t, b.TryAcquire(2))
	assert.PanicsWithValue(t, "redissem: Release(2): released more than held (0 held)", func() { b.Release(2) },
		"permits are held per handle")
	a.Release(2)
	assert.True(t, b.TryAcquire(3))
	b.Release(3)
}

// Tokens increase strictly in grant order, across handles, also for
// waiters granted by another handle's release.
func TestTokensIncrease(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, shared.Addr())
	a := newSem(t, rdb, 1)
	b, err := redissem.New(context.Background(), rdb, a.Name(), 1)
	require.NoError(t, err)
	defer b.Close()
	ctx := context.Background()
	var last int64
	for i := range 10 {
		h := a
		if i%2 == 1 {
			h = b
		}
		p, err := h.AcquirePermit(ctx, 1)
		require.NoError(t, err)
		assert.Greater(t, p.Token(), last)
		last = p.Token()
		require.NoError(t, p.Release(ctx))
	}
	p, err := a.AcquirePermit(ctx, 1)
	require.NoError(t, err)
	got := make(chan *redissem.Permit)
	go func() {
		p, _ := b.AcquirePermit(ctx, 1)
		got <- p
	}()
	time.Sleep(100 * time.Millisecond) // let b queue behind a; only ordering depends on it
	require.NoError(t, p.Release(ctx))
	next := <-got
	assert.Greater(t, next.Token(), p.Token())
	require.NoError(t, next.Release(ctx))
}

// A waiter is woken by the release's notification, not by the handle's
// refresh of its entry: with the refresh seconds away, it is still served
// at once.
func TestNotificationWakesWaiter(t *testing.T) {
	t.Parallel()
	c := new(counter)
	rdb := newClient(t, shared.Addr(), c)
	s := newSem(t, rdb, 1, redissem.WithLease(30*time.Second), redissem.WithPollInterval(10*time.Second))
	require.True(t, s.TryAcquire(1))
	done := make(chan error)
	go func() { done <- s.Acquire(context.Background(), 1) }()
	c.settle()
	trips := c.trips.Load()
	s.Release(1)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter was not woken within 5s of the release; the next refresh is due later")
	}
	assert.Equal(t, trips+1, c.trips.Load(), "the release is the only round trip: the waiter is granted by it")
	s.Release(1)
}

// Uncontended, Acquire and Release cost one round trip each.
func TestOneRoundTripEach(t *testing.T) {
	t.Parallel()
	c := new(counter)
	rdb := newClient(t, shared.Addr(), c)
	s := newSem(t, rdb, 2)
	ctx := context.Background()
	require.NoError(t, s.Acquire(ctx, 1)) // warm the script cache
	s.Release(1)
	for range 5 {
		before := c.trips.Load()
		require.NoError(t, s.Acquire(ctx, 2))
		assert.Equal(t, before+1, c.trips.Load(), "round trips of an uncontended Acquire")
		s.Release(2)
		assert.Equal(t, before+2, c.trips.Load(), "round trips of a Release")
		require.True(t, s.TryAcquire(1))
		assert.Equal(t, before+3, c.trips.Load(), "round trips of a TryAcquire")
		s.Release(1)
	}
}

// A canceled waiter leaves no trace in Redis.
func TestCancelLeavesNoEntry(t *testing.T) {
	t.Parallel()
	c := new(counter)
	rdb := newClient(t, shared.Addr(), c)
	s := newSem(t, rdb, 1)
	require.True(t, s.TryAcquire(1))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Acquire(ctx, 1) }()
	c.settle()
	queue := "redissem:{" + s.Name() + "}:queue"
	assert.Equal(t, int64(1), rdb.ZCard(context.Background(), queue).Val())
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	assert.Equal(t, int64(0), rdb.ZCard(context.Background(), queue).Val())
	assert.Equal(t, int64(0), rdb.ZCard(context.Background(), "redissem:{"+s.Name()+"}:wexp").Val())
	var grants int
	for _, rec := range rdb.HVals(context.Background(), "redissem:{"+s.Name()+"}:recs").Val() {
		if strings.HasPrefix(rec, "h ") {
			grants++
		}
	}
	assert.Equal(t, 1, grants, "only the test's grant is recorded")
	s.Release(1)
	assert.Equal(t, int64(1), available(t, s))
}

func TestClose(t *testing.T) {
	t.Parallel()
	c := new(counter)
	rdb := newClient(t, shared.Addr(), c)
	s, err := redissem.New(context.Background(), rdb, uniqueName(t), 2)
	require.NoError(t, err)
	other, err := redissem.New(context.Background(), rdb, s.Name(), 2)
	require.NoError(t, err)
	defer other.Close()
	require.NoError(t, s.Acquire(context.Background(), 2))
	done := make(chan error)
	go func() { done <- s.Acquire(context.Background(), 1) }()
	c.settle()
	require.NoError(t, s.Close())
	require.ErrorIs(t, <-done, redissem.ErrClosed)
	assert.Equal(t, int64(2), available(t, other), "Close releases what the handle held")
	require.ErrorIs(t, s.Acquire(context.Background(), 1), redissem.ErrClosed)
	assert.False(t, s.TryAcquire(1))
	assert.NotPanics(t, func() { s.Release(2) }, "the callers still hold 2 in the handle's books")
	require.NoError(t, s.Close())
}

// Redis forgetting a grant (here, every key deleted by hand, as in a
// restart without persistence) reaches the error handler as ErrLeaseLost.
// Not parallel: under the parallel tests' load its handler's first error
// was once ErrStateLost instead (seen failing with -cpu 1 and in 1 of 15
// copies run in parallel; never in 15 serial runs); a serial test runs
// alone.
func TestLeaseLostIsReported(t *testing.T) {
	rdb := newClient(t, shared.Addr())
	errs := make(chan error, 10)
	s := newSem(t, rdb, 2, redissem.WithLease(300*time.Millisecond),
		redissem.WithErrorHandler(func(err error) { errs <- err }))
	require.NoError(t, s.Acquire(context.Background(), 1))
	prefix := "redissem:{" + s.Name() + "}:"
	require.NoError(t, rdb.Del(context.Background(), prefix+"meta", prefix+"holders", prefix+"recs", prefix+"queue", prefix+"wexp").Err())
	deadline := time.After(5 * time.Second)
	for lost := false; !lost; {
		select {
		case err := <-errs:
			// A refresh that timed out on a loaded machine reports
			// ErrUnavailable first, as CI saw: it says nothing of the grant.
			if !errors.Is(err, redissem.ErrUnavailable) {
				require.ErrorIs(t, err, redissem.ErrLeaseLost)
				lost = true
			}
		case <-deadline:
			t.Fatal("no ErrLeaseLost within 5s of the grant's disappearance")
		}
	}
	s.Release(1)
}

// requireClosed fails the test unless done is closed.
func requireClosed(t *testing.T, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	default:
		t.Fatal("Done is still open")
	}
}

// available returns s.Available, failing the test on error.
func available(t testing.TB, s *redissem.Semaphore) int64 {
	t.Helper()
	n, err := s.Available(context.Background())
	require.NoError(t, err)
	return n
}

// errorsCollector gathers the errors passed to a handler.
type errorsCollector struct {
	mu   sync.Mutex
	errs []error
}

func (e *errorsCollector) add(err error) {
	e.mu.Lock()
	e.errs = append(e.errs, err)
	e.mu.Unlock()
}

func (e *errorsCollector) all() []error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]error(nil), e.errs...)
}

// Release gives back the handle's oldest grants first, as etcdsem does: of
// two grants, the one left in Redis after Release(1) is the newer.
func TestReleaseOldestFirst(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, shared.Addr())
	s := newSem(t, rdb, 2)
	ctx := context.Background()
	require.NoError(t, s.Acquire(ctx, 1))
	require.NoError(t, s.Acquire(ctx, 1))
	recs := "redissem:{" + s.Name() + "}:recs"
	tokens := func() []int64 {
		var out []int64
		for _, r := range rdb.HVals(ctx, recs).Val() {
			var n, tok int64
			if _, err := fmt.Sscanf(r, "h %d %d", &n, &tok); err == nil {
				out = append(out, tok)
			}
		}
		return out
	}
	both := tokens()
	require.Len(t, both, 2)
	s.Release(1)
	assert.Equal(t, []int64{max(both[0], both[1])}, tokens(), "the older grant was released")
	s.Release(1)
}

// A Permit's life: its weight and token, Done and Err through Release and
// Close, a second Release panicking, and its permits kept apart from the
// handle's Release.
func TestPermitLifecycle(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, shared.Addr())
	s, err := redissem.New(context.Background(), rdb, uniqueName(t), 3)
	require.NoError(t, err)
	ctx := context.Background()

	none, err := s.AcquirePermit(ctx, 0)
	require.NoError(t, err)
	assert.Zero(t, none.Token())
	assert.Nil(t, none.Done(), "a Permit of nothing never ends")
	require.NoError(t, none.Release(ctx))

	p, err := s.AcquirePermit(ctx, 2)
	require.NoError(t, err)
	assert.Equal(t, int64(2), p.Weight())
	assert.Positive(t, p.Token())
	require.NoError(t, p.Err())
	assert.PanicsWithValue(t, "redissem: Release(1): released more than held (0 held)", func() { s.Release(1) },
		"a Permit's permits are released through the Permit")
	require.NoError(t, p.Release(ctx))
	requireClosed(t, p.Done())
	require.ErrorIs(t, p.Err(), redissem.ErrReleased)
	assert.PanicsWithValue(t, fmt.Sprintf("redissem: Permit.Release: the permit (token %d) was released already", p.Token()),
		func() { _ = p.Release(ctx) })
	assert.Equal(t, int64(3), available(t, s))

	q, err := s.AcquirePermit(ctx, 1)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	requireClosed(t, q.Done())
	require.ErrorIs(t, q.Err(), redissem.ErrClosed)
	require.NoError(t, q.Release(ctx), "Close released it already")
	_, err = s.AcquirePermit(ctx, 0)
	require.ErrorIs(t, err, redissem.ErrClosed, "a Permit of nothing after Close")
	check, err := redissem.New(context.Background(), rdb, s.Name(), 3)
	require.NoError(t, err)
	defer check.Close()
	assert.Equal(t, int64(3), available(t, check), "Close gave the Permit's permits back")
}

// Names that cannot stand in the keys' hash tag are refused at New, before
// any round trip: an empty one would scatter the keys over Cluster slots.
func TestBadNames(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, shared.Addr())
	for name, problem := range map[string]string{
		"":          "empty name",
		"a}b":       "the name holds a brace, which would break its keys' hash tag",
		"{x}":       "the name holds a brace, which would break its keys' hash tag",
		"tab\there": "the name holds a control character",
	} {
		assert.PanicsWithValue(t, fmt.Sprintf("redissem: New(%q): %s", name, problem),
			func() { _, _ = redissem.New(context.Background(), rdb, name, 1) })
	}
	assert.PanicsWithValue(t, `redissem: WithPrefix("a{"): the prefix must not hold a brace`,
		func() { redissem.WithPrefix("a{") })
}

// WithPrefix moves every key of the semaphore under the prefix.
func TestKeyPrefix(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, shared.Addr())
	ctx := context.Background()
	s := newSem(t, rdb, 1, redissem.WithPrefix("tenant7:"))
	require.NoError(t, s.Acquire(ctx, 1))
	keys, err := rdb.Keys(ctx, "*"+s.Name()+"*").Result()
	require.NoError(t, err)
	require.NotEmpty(t, keys)
	for _, k := range keys {
		assert.True(t, strings.HasPrefix(k, "tenant7:{"+s.Name()+"}:"), k)
	}
	other, err := redissem.New(context.Background(), rdb, s.Name(), 1)
	require.NoError(t, err)
	defer other.Close()
	assert.True(t, other.TryAcquire(1), "a handle with another prefix is another semaphore")
	other.Release(1)
	s.Release(1)
}

// Waiting reads the queue in Redis: a handle sees the waiters of every
// handle on the name.
func TestWaitingAcrossHandles(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, shared.Addr())
	holder := newSem(t, rdb, 3)
	other := otherHandle(t, holder)
	require.True(t, holder.TryAcquire(3))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- other.Acquire(ctx, 2) }()
	waitFor(t, "the waiter to queue", queued(t, rdb, holder, 1))
	requests, permits := holder.Waiting()
	assert.Equal(t, 1, requests)
	assert.Equal(t, int64(2), permits)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	requests, permits = holder.Waiting()
	assert.Zero(t, requests)
	assert.Zero(t, permits)
	holder.Release(3)
}

// Resize changes the size in Redis for every handle on the name: another
// handle's waiter larger than the new size fails, that handle reports the
// new size after its next round trip and is admitted by it, and New with
// the old size is refused.
func TestResizeAcrossHandles(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, shared.Addr())
	ctx := context.Background()
	s := newSem(t, rdb, 3)
	other := otherHandle(t, s)
	require.True(t, s.TryAcquire(3))
	done := make(chan error, 1)
	go func() { done <- other.Acquire(ctx, 3) }()
	waitFor(t, "the waiter to queue", queued(t, rdb, s, 1))

	s.Resize(2)
	err := <-done
	require.ErrorIs(t, err, sem.ErrExceedsSize)
	assert.Contains(t, err.Error(), "size 2")
	assert.Equal(t, int64(2), other.Size(), "the waiter's handle learned the new size from Redis")
	s.Release(3)
	assert.True(t, other.TryAcquire(2), "the other handle is admitted by the new size")
	assert.False(t, s.TryAcquire(1), "2 of 2 held")
	other.Release(2)

	_, err = redissem.New(context.Background(), rdb, s.Name(), 3)
	require.ErrorIs(t, err, redissem.ErrSizeMismatch)
	s.Resize(4)
	assert.True(t, other.TryAcquire(4), "grown through the other handle")
	assert.Equal(t, int64(4), other.Size())
	other.Release(4)
}
