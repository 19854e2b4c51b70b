package etcdsem_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/etcdsem"
	"github.com/semacat/sem/semtest"
)

// The single-member etcd most tests share, a process started by TestMain,
// and a client of it.
var (
	server *cluster
	cli    *clientv3.Client
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(withServer{m})
}

// withServer runs the tests with an etcd server. The worker processes of the
// multi-process tests (TestHelperProcess) talk to their parent's.
type withServer struct{ m *testing.M }

func (w withServer) Run() int {
	if os.Getenv(workerEnv) != "" {
		return w.m.Run()
	}
	bin, err := etcdBinary()
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcdsem:", err)
		return 1
	}
	dir, err := os.MkdirTemp("", "etcdsem-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcdsem:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if server, err = startCluster(bin, dir, 1); err != nil {
		fmt.Fprintln(os.Stderr, "etcdsem: starting the test server:", err)
		return 1
	}
	defer server.close()
	if cli, err = server.client(); err != nil {
		fmt.Fprintln(os.Stderr, "etcdsem: a client of the test server:", err)
		return 1
	}
	defer cli.Close()
	// The examples dial ETCD_ENDPOINTS, as a user's program would.
	if err := os.Setenv("ETCD_ENDPOINTS", strings.Join(server.Endpoints, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "etcdsem:", err)
		return 1
	}
	return w.m.Run()
}

var (
	_ sem.Semaphore = (*etcdsem.Semaphore)(nil)
	_ sem.Closer    = (*etcdsem.Semaphore)(nil)
	_ sem.Resizer   = (*etcdsem.Semaphore)(nil)
	_ sem.Observer  = (*etcdsem.Semaphore)(nil)
)

var names atomic.Int64

// uniqueName returns a semaphore name no other test uses.
func uniqueName(t testing.TB) string {
	return fmt.Sprintf("%s-%d", t.Name(), names.Add(1))
}

// newSem makes a handle on a fresh semaphore, closed when t ends.
func newSem(t testing.TB, size int64, opts ...etcdsem.Option) *etcdsem.Semaphore {
	t.Helper()
	s, err := etcdsem.New(context.Background(), cli, uniqueName(t), size, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	return s
}

// handles collects the handles a test makes, from any goroutine (typically
// in the constructor semtest calls), and closes them when the test ends.
type handles struct {
	mu  sync.Mutex
	all []*etcdsem.Semaphore
}

// newHandles returns an empty collection whose handles are closed when t
// ends; a Close that fails fails t.
func newHandles(t testing.TB) *handles {
	h := new(handles)
	t.Cleanup(func() {
		for i, s := range h.All() {
			assert.NoError(t, s.Close(), "closing handle %d at the end of the test", i)
		}
	})
	return h
}

// Add records s and returns it.
func (h *handles) Add(s *etcdsem.Semaphore) sem.Semaphore {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.all = append(h.all, s)
	return s
}

// All returns the handles recorded so far, oldest first.
func (h *handles) All() []*etcdsem.Semaphore {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.all[:len(h.all):len(h.all)]
}

// settle waits until every handle in hs has settled (see Settled): all
// their calls returned or parked on watches that have seen all their
// writes. The state is read twice, a few milliseconds apart, to cover the
// instructions between a call's return and its caller noting it.
func settle(hs func() []*etcdsem.Semaphore) func() {
	settled := func() bool {
		for _, s := range hs() {
			if !s.Settled() {
				return false
			}
		}
		return true
	}
	return func() {
		deadline := time.Now().Add(10 * time.Second)
		for stable := 0; stable < 2 && time.Now().Before(deadline); {
			time.Sleep(2 * time.Millisecond)
			if settled() {
				stable++
			} else {
				stable = 0
			}
		}
	}
}

// settleHandles waits until the handles hs have settled, as settle does.
func settleHandles(hs ...*etcdsem.Semaphore) {
	settle(func() []*etcdsem.Semaphore { return hs })()
}

// await receives from ch, failing t if nothing comes within 20 seconds: a
// broken implementation fails the test instead of hanging it.
func await[T any](t testing.TB, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(20 * time.Second):
		t.Fatal("nothing received in 20s; a waiter was never woken")
		panic("unreachable")
	}
}

// Not parallel: semtest times its rows in ticks of real time, and a serial
// test runs alone, before the parallel ones start.
func TestConformance(t *testing.T) {
	handles := newHandles(t)
	newFn := func(size int64) sem.Semaphore {
		s, err := etcdsem.New(context.Background(), cli, uniqueName(t), size, etcdsem.WithLease(5*time.Second))
		if err != nil {
			panic(err) // semtest reports it as a failure of New
		}
		return handles.Add(s)
	}
	semtest.Run(t, newFn, semtest.Guarantees{FIFO: true, NoStarvation: true, NoBarging: true},
		semtest.WithSettle(settle(handles.All)), semtest.WithTick(100*time.Millisecond))
}

func TestBadInputMessages(t *testing.T) {
	t.Parallel()
	assert.PanicsWithValue(t, "etcdsem: New(0): size must be at least 1", func() { _, _ = etcdsem.New(context.Background(), cli, "x", 0) })
	s := newSem(t, 2)
	assert.PanicsWithValue(t, "etcdsem: Acquire(-2): negative weight",
		func() { _ = s.Acquire(context.Background(), -2) })
	assert.PanicsWithValue(t, "etcdsem: TryAcquire(-1): negative weight",
		func() { s.TryAcquire(-1) })
	assert.PanicsWithValue(t, "etcdsem: AcquirePermit(-1): negative weight",
		func() { _, _ = s.AcquirePermit(context.Background(), -1) })
	assert.PanicsWithValue(t, "etcdsem: Release(1): released more than held (0 held)", func() { s.Release(1) })

	err := s.Acquire(context.Background(), 3)
	require.ErrorIs(t, err, sem.ErrExceedsSize)
	assert.EqualError(t, err, "etcdsem: Acquire(3) on size 2: sem: request exceeds semaphore size")
	_, err = s.AcquirePermit(context.Background(), 3)
	require.ErrorIs(t, err, sem.ErrExceedsSize)

	assert.PanicsWithValue(t, `etcdsem: New(""): the semaphore name must not be empty`,
		func() { _, _ = etcdsem.New(context.Background(), cli, "", 1) })
}

// A nil client, a nil option, and options with values that cannot be
// meant panic, naming the package, the call or option and the value,
// before anything talks to the server.
func TestBadOptionsPanic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	assert.PanicsWithValue(t, `etcdsem: New("c"): the *clientv3.Client is nil`,
		func() { _, _ = etcdsem.New(ctx, nil, "c", 1) })
	assert.PanicsWithValue(t, "etcdsem: NewSession: the *clientv3.Client is nil",
		func() { _, _ = etcdsem.NewSession(ctx, nil) })
	assert.PanicsWithValue(t, "etcdsem: New: option 1 of 1 is nil",
		func() { _, _ = etcdsem.New(ctx, cli, "c", 1, nil) })
	assert.PanicsWithValue(t, "etcdsem: NewSession: option 2 of 2 is nil",
		func() { _, _ = etcdsem.NewSession(ctx, cli, etcdsem.WithTimeout(time.Second), nil) })
	assert.PanicsWithValue(t, "etcdsem: WithSession(nil): the session must not be nil (make one with NewSession)",
		func() { etcdsem.WithSession(nil) })
	assert.PanicsWithValue(t, "etcdsem: WithTimeout(0s): the timeout must be positive",
		func() { etcdsem.WithTimeout(0) })
	assert.PanicsWithValue(t, "etcdsem: WithTimeout(-1ms): the timeout must be positive",
		func() { etcdsem.WithTimeout(-time.Millisecond) })
	assert.PanicsWithValue(t, "etcdsem: WithLease(-1s): the TTL must be positive",
		func() { etcdsem.WithLease(-time.Second) })
	assert.PanicsWithValue(t, "etcdsem: WithLease(0s): the TTL must be positive",
		func() { etcdsem.WithLease(0) })
	assert.NotPanics(t, func() { etcdsem.WithLease(time.Nanosecond); etcdsem.WithTimeout(time.Nanosecond) })
}

// A constructor given an option it does not use panics, naming the
// constructor and the option, before it talks to the server.
func TestUnusedOptionsAreRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ss, err := etcdsem.NewSession(ctx, cli, etcdsem.WithLease(5*time.Second), etcdsem.WithTimeout(time.Second))
	require.NoError(t, err)
	defer ss.Close()
	for _, opt := range []struct {
		name string
		opt  etcdsem.Option
	}{
		{"WithPrefix", etcdsem.WithPrefix("/p/")},
		{"WithOwner", etcdsem.WithOwner("me")},
		{"WithErrorHandler", etcdsem.WithErrorHandler(func(error) {})},
		{"WithSession", etcdsem.WithSession(ss)},
	} {
		assert.PanicsWithValue(t, "etcdsem: NewSession: option "+opt.name+" is not used by NewSession (it configures a handle: give it to New)",
			func() { _, _ = etcdsem.NewSession(ctx, cli, etcdsem.WithLease(5*time.Second), opt.opt) })
	}

	assert.PanicsWithValue(t, "etcdsem: New: option WithLease is not used by New (a handle made WithSession has its session's lease: give WithLease to NewSession)",
		func() {
			_, _ = etcdsem.New(ctx, cli, uniqueName(t), 1, etcdsem.WithSession(ss), etcdsem.WithLease(time.Minute))
		})
	s, err := etcdsem.New(ctx, cli, uniqueName(t), 1, etcdsem.WithSession(ss), etcdsem.WithTimeout(time.Second),
		etcdsem.WithPrefix(etcdsem.DefaultPrefix), etcdsem.WithOwner("me"), etcdsem.WithErrorHandler(func(error) {}))
	require.NoError(t, err, "New uses every other option with WithSession")
	require.NoError(t, s.Close())
}

// New and NewSession stop at their context: a canceled one fails them
// at once, with the context's error.
func TestConstructorsTakeContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := etcdsem.New(ctx, cli, uniqueName(t), 1)
	assert.ErrorIs(t, err, context.Canceled)
	_, err = etcdsem.NewSession(ctx, cli)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestSizeIsRecordedAtTheName(t *testing.T) {
	t.Parallel()
	name := uniqueName(t)
	a, err := etcdsem.New(context.Background(), cli, name, 3)
	require.NoError(t, err)
	defer a.Close()
	b, err := etcdsem.New(context.Background(), cli, name, 3)
	require.NoError(t, err, "a second handle with the same size")
	defer b.Close()
	_, err = etcdsem.New(context.Background(), cli, name, 4)
	require.ErrorIs(t, err, etcdsem.ErrSizeMismatch)
	assert.EqualError(t, err, fmt.Sprintf(`etcdsem: New(%q, 4): the semaphore has size 3: etcdsem: semaphore exists with a different size`, name))
	// A name with a slash cannot reach into another semaphore's keys.
	c, err := etcdsem.New(context.Background(), cli, name+"/q", 1)
	require.NoError(t, err)
	defer c.Close()
}

// Handles share a semaphore by name; admission is FIFO across them.
func TestHandlesShareFIFO(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	name := uniqueName(t)
	open := func() *etcdsem.Semaphore {
		s, err := etcdsem.New(context.Background(), cli, name, 3)
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, s.Close()) })
		return s
	}
	a, b, c := open(), open(), open()
	require.NoError(t, a.Acquire(ctx, 3))
	bDone := make(chan error, 1)
	go func() { bDone <- b.Acquire(ctx, 2) }()
	settleHandles(a, b, c)
	assert.False(t, c.TryAcquire(1), "TryAcquire(1) on another handle barged past a waiter")
	a.Release(1)
	assert.Equal(t, int64(1), available(t, a), "1 permit free; the waiter wants 2")
	assert.False(t, c.TryAcquire(1), "TryAcquire(1) barged past the waiter with 1 free")
	a.Release(1)
	require.NoError(t, await(t, bDone))
	assert.Equal(t, int64(2), b.Held())
	assert.True(t, c.TryAcquire(0))
	assert.False(t, c.TryAcquire(1), "a holds 1 and b holds 2")
	a.Release(1)
	assert.True(t, c.TryAcquire(1))
	b.Release(2)
	c.Release(1)
	assert.Equal(t, int64(3), available(t, c))
}

// Release(n) accepts any n up to what is held, whatever the weights of the
// acquisitions: it deletes the oldest keys and shrinks one in place.
func TestReleaseSplitsKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSem(t, 4)
	other, err := etcdsem.New(context.Background(), cli, s.Name(), 4)
	require.NoError(t, err)
	defer other.Close()

	require.NoError(t, s.Acquire(ctx, 1))
	require.NoError(t, s.Acquire(ctx, 3))
	assert.Equal(t, int64(4), s.Held())
	done := make(chan error, 1)
	go func() { done <- other.Acquire(ctx, 2) }()
	settleHandles(s, other)

	s.Release(2) // all of the first key, 1 of the second: 2 free
	require.NoError(t, await(t, done), "the waiter for 2 after Release(2) of keys weighing 1 and 3")
	assert.Equal(t, int64(2), s.Held())
	assert.Equal(t, int64(0), available(t, s))

	s.Release(1)
	assert.Equal(t, int64(1), available(t, s))
	assert.PanicsWithValue(t, "etcdsem: Release(2): released more than held (1 held)", func() { s.Release(2) })
	s.Release(1)
	other.Release(2)
	assert.Equal(t, int64(4), available(t, s))
}

// A shrunk key keeps its place in the queue: those queued behind it are
// not overtaken by it, nor it by them.
func TestShrunkKeyKeepsItsPlace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSem(t, 2)
	p, err := s.AcquirePermit(ctx, 1)
	require.NoError(t, err)
	require.NoError(t, s.Acquire(ctx, 1))
	require.NoError(t, s.Acquire(ctx, 0))
	before := p.Token()
	// Release(1) empties the oldest key of the pool (not the Permit's).
	s.Release(1)
	assert.Equal(t, before, p.Token())
	resp, err := cli.Get(ctx, p.Key())
	require.NoError(t, err)
	require.Len(t, resp.Kvs, 1)
	assert.Equal(t, before, resp.Kvs[0].CreateRevision)
	require.NoError(t, p.Release(ctx))
}

func TestPermitFencing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSem(t, 1)
	p, err := s.AcquirePermit(ctx, 1)
	require.NoError(t, err)
	assert.Positive(t, p.Token())
	assert.Equal(t, int64(1), p.Weight())
	assert.Zero(t, s.Held(), "a Permit is not part of the pool Release draws from")

	fenced := func(p *etcdsem.Permit) bool {
		resp, err := cli.Txn(ctx).If(p.Cmp()).Then(clientv3.OpPut(uniqueName(t), "x")).Commit()
		require.NoError(t, err)
		return resp.Succeeded
	}
	assert.True(t, fenced(p), "a write fenced by a held permit")

	next := make(chan *etcdsem.Permit, 1)
	go func() {
		q, err := s.AcquirePermit(ctx, 1)
		assert.NoError(t, err)
		next <- q
	}()
	settleHandles(s)
	require.NoError(t, p.Release(ctx))
	q := await(t, next)
	assert.Greater(t, q.Token(), p.Token(), "a later holder of a size-1 semaphore has a larger token")
	assert.False(t, fenced(p), "a write fenced by a released permit")
	assert.True(t, fenced(q))
	assert.PanicsWithValue(t, "etcdsem: Release(1): released more than held (0 held)", func() { _ = p.Release(ctx) })
	require.NoError(t, q.Release(ctx))

	z, err := s.AcquirePermit(ctx, 0)
	require.NoError(t, err)
	assert.Zero(t, z.Token())
	assert.NoError(t, z.Release(ctx))
	require.NoError(t, s.Close())
	_, err = s.AcquirePermit(ctx, 0)
	require.ErrorIs(t, err, etcdsem.ErrClosed, "a Permit of nothing after Close")
}

// Close revokes the lease: permits held come back, waiting calls fail.
func TestCloseGivesBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	name := uniqueName(t)
	a, err := etcdsem.New(context.Background(), cli, name, 2)
	require.NoError(t, err)
	b, err := etcdsem.New(context.Background(), cli, name, 2)
	require.NoError(t, err)
	defer b.Close()

	require.NoError(t, a.Acquire(ctx, 2))
	aWait := make(chan error, 1)
	go func() { aWait <- a.Acquire(ctx, 1) }()
	bWait := make(chan error, 1)
	go func() { bWait <- b.Acquire(ctx, 2) }()
	settleHandles(a, b)

	require.NoError(t, a.Close())
	assert.ErrorIs(t, await(t, aWait), etcdsem.ErrClosed)
	require.NoError(t, await(t, bWait), "the waiter on another handle after the holder's Close")
	assert.ErrorIs(t, a.Acquire(ctx, 1), etcdsem.ErrClosed)
	assert.False(t, a.TryAcquire(1))
	a.Release(2) // the revoked lease gave them back already
	assert.NoError(t, a.Close(), "a second Close")
	b.Release(2)
}
