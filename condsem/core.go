package condsem

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/check"
	"github.com/semacat/sem/internal/observe"
)

// core is what both variants keep: the permits held and the size under one
// mutex, the condition variable their waiters park on, the closed flag, the
// count of waiters and the function installed by OnWait. Semaphore and Fair
// embed it and differ in who may take free permits and whom a Release
// wakes.
type core struct {
	mu    sync.Mutex
	cond  cond         // waiters; guarded by mu
	size  atomic.Int64 // stored only under mu
	limit int64        // size, or 0 once closed: free permits are limit-cur
	cur   int64        // permits held

	closed bool
	fair   bool // a Release wakes the waiters only when the head of queue fits

	// waiters counts the Acquire calls in wait, and wanted the permits they
	// ask for. Release skips the broadcast when nobody waits: a broadcast
	// to nobody is cheap but not free, a cost that
	// BenchmarkSemaphore/uncontended in benchmarks shows.
	waiters int
	wanted  observe.Total

	queue []request // the fair variant's waiting Acquires, in arrival order
	next  uint64    // ticket for the next request to join the queue

	onWait observe.Hook
	test   *testHooks // nil outside tests
}

// testHooks are functions a test installs on one semaphore, to run at the
// moments their fields name.
type testHooks struct {
	// lock runs in Acquire just before it takes the mutex to look at its
	// context and the permits.
	lock func()
}

// request is an Acquire waiting in the fair variant's queue.
type request struct {
	ticket uint64
	n      int64
}

// init sets s up with size permits of which available are free.
func (s *core) init(size, available int64, fair bool) {
	s.limit, s.cur, s.fair = size, size-available, fair
	s.size.Store(size)
	s.cond.init(&s.mu)
}

// Size returns the total number of permits.
func (s *core) Size() int64 { return s.size.Load() }

// Available returns the number of permits free at this instant, negative
// while a shrink has left more permits held than the size. It is a snapshot
// for monitoring and teaching, stale as soon as it returns. In the fair
// variant free permits may still be unavailable to a newcomer, because they
// are being kept for the head of the queue.
func (s *core) Available() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.size.Load() - s.cur
}

// acquire is Acquire(ctx, n) for both variants: it takes n permits at once
// if a newcomer may, or else calls wait(ctx, n) with s.mu held, which waits
// for them, counted as waiting, and reports the wait to the function
// installed by OnWait, if any.
//
// It looks at ctx under the mutex, which every Release takes too: a look
// before the mutex would let a cancellation, and then a Release that frees
// the permits, land between the look and the take.
func (s *core) acquire(ctx context.Context, n int64, wait func(context.Context, int64) error) error {
	// The argument checks and the zero-weight answer below are a deliberate
	// copy of weighted's Acquire: one shared helper for both measured
	// slower on the uncontended path of each in paired runs of
	// BenchmarkUncontended (the commit that reverted check.ErrWeight).
	pkg.PanicIfNegative("Acquire", n)
	if size := s.size.Load(); n > size {
		return pkg.ErrExceedsSize(n, size)
	}
	if n == 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		return s.zeroWeight()
	}
	if t := s.test; t != nil && t.lock != nil {
		t.lock()
	}
	s.mu.Lock()
	if err := ctx.Err(); err != nil {
		s.mu.Unlock()
		return err
	}
	if s.mayTake(n) {
		s.cur += n
		s.mu.Unlock()
		return nil
	}
	o := s.onWait.Start(n)
	return o.End(s.waitCounted(ctx, n, wait))
}

// waitCounted, called with s.mu held, runs wait(ctx, n), the variant's wait
// for n permits, which returns with s.mu still held. It counts the Acquire
// as waiting while wait runs, and releases s.mu when it returns.
func (s *core) waitCounted(ctx context.Context, n int64, wait func(context.Context, int64) error) error {
	s.waiters++
	s.wanted.Add(n)
	defer func() {
		s.waiters--
		s.wanted.Sub(n)
		s.mu.Unlock()
	}()
	return wait(ctx, n)
}

// mayTake, called with s.mu held, reports whether a newcomer may take n
// permits now: they are free, and in the fair variant nobody is queued.
func (s *core) mayTake(n int64) bool {
	return (!s.fair || len(s.queue) == 0) && s.limit-s.cur >= n
}

// tryAcquire is TryAcquire(n) for both variants.
func (s *core) tryAcquire(n int64) bool {
	pkg.PanicIfNegative("TryAcquire", n)
	if n == 0 {
		return s.zeroWeight() == nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.mayTake(n) {
		return false
	}
	s.cur += n
	return true
}

// zeroWeight returns the error of Acquire(ctx, 0) when ctx is not done: nil,
// or the closed error once the semaphore is closed.
func (s *core) zeroWeight() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return pkg.ErrClosed(0)
	}
	return nil
}

// failure returns the error a waiting Acquire(ctx, n) must return now, in
// this order: ctx.Err(), the semaphore closed, n above the size.
func (s *core) failure(ctx context.Context, n int64) error {
	return pkg.ErrNow(ctx, n, s.size.Load(), s.closed)
}

// Release returns n permits and wakes the waiters: in the plain variant all
// of them, each of which rechecks whether its request now fits; in the fair
// variant all of them only if the request at the head of the queue now
// fits, so that it is served. It panics if n is negative or more than the
// permits held; the check happens before any permit is returned.
func (s *core) Release(n int64) {
	pkg.PanicIfNegative("Release", n)
	if n == 0 {
		return
	}
	s.mu.Lock()
	if n > s.cur {
		held := s.cur
		s.mu.Unlock()
		pkg.PanicOverRelease(n, held)
	}
	s.cur -= n
	if s.fair {
		s.wakeHead()
	} else if s.waiters > 0 {
		s.cond.broadcast()
	}
	s.mu.Unlock()
}

// wakeHead wakes the waiters if the request at the head of the fair
// variant's queue fits. All of them wake; all but the head wait again.
func (s *core) wakeHead() {
	if len(s.queue) > 0 && s.limit-s.cur >= s.queue[0].n {
		s.cond.broadcast()
	}
}

// Resize sets the size to size, which must be at least 1; it panics
// otherwise. Growing frees the new permits and wakes the waiters; shrinking
// revokes nothing: holders keep their permits, and while more are held than
// the new size none is free. Every waiting request larger than the new size
// fails with an error wrapping sem.ErrExceedsSize as soon as it runs; in
// the fair variant it leaves the queue, and the requests behind it keep
// their order.
func (s *core) Resize(size int64) {
	pkg.PanicIfBadSize("Resize", size, check.Unbounded)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.size.Store(size)
	if !s.closed {
		s.limit = size
	}
	if s.waiters > 0 {
		s.cond.broadcast()
	}
}

// Close fails every waiting Acquire, and every later one, with an error
// wrapping sem.ErrClosed; TryAcquire fails from then on. Release is still
// accepted, so holders can give back what they hold. Close is idempotent
// and always returns nil.
func (s *core) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed, s.limit = true, 0
	s.cond.broadcast()
	return nil
}

// Waiting reports how many Acquire calls wait and how many permits they
// ask for in total, math.MaxInt64 if they ask for more. It is a snapshot,
// stale as soon as it returns.
func (s *core) Waiting() (requests int, permits int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiters, s.wanted.Permits()
}

// OnWait installs f to be called once by every Acquire that waited, when it
// stops waiting, before it returns; OnWait(nil) removes it. With none
// installed, nothing reads the clock.
func (s *core) OnWait(f func(sem.WaitEvent)) { s.onWait.Set(f) }
