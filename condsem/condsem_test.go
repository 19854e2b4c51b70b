package condsem_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/condsem"
	"github.com/semacat/sem/internal/acquiretest"
	"github.com/semacat/sem/semtest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var (
	_ sem.Semaphore = (*condsem.Semaphore)(nil)
	_ sem.Semaphore = (*condsem.Fair)(nil)
)

// semaphore is what both variants offer.
type semaphore interface {
	sem.Semaphore
	Size() int64
	Available() int64
}

// variants are the two semaphores of the package, with exactly the
// guarantees each declares.
var variants = []struct {
	name       string
	new        func(size int64) semaphore
	guarantees semtest.Guarantees
}{
	{"plain", func(size int64) semaphore { return condsem.New(size) }, semtest.Guarantees{}},
	{"fair", func(size int64) semaphore { return condsem.NewFair(size) },
		semtest.Guarantees{FIFO: true, NoBarging: true, NoStarvation: true}},
}

func TestConformance(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			semtest.Run(t, func(size int64) sem.Semaphore { return v.new(size) }, v.guarantees)
		})
	}
}

// newAvailable is each variant's NewAvailable constructor.
var newAvailable = map[string]func(size, available int64) sem.Semaphore{
	"plain": func(size, available int64) sem.Semaphore { return condsem.NewAvailable(size, available) },
	"fair":  func(size, available int64) sem.Semaphore { return condsem.NewFairAvailable(size, available) },
}

// TestConformanceNewAvailable runs the suite again with each variant's
// NewAvailable constructor, so that its rows run too.
func TestConformanceNewAvailable(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			acquiretest.ConformanceNewAvailable(t, func(size int64) sem.Semaphore { return v.new(size) }, v.guarantees,
				newAvailable[v.name])
		})
	}
}

// constructor names each variant's constructor, as its panics do.
var constructor = map[string]string{"plain": "New", "fair": "NewFair"}

func TestBadInputMessages(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			acquiretest.CheckBadInputMessages(t, "condsem", constructor[v.name], func(size int64) sem.Semaphore { return v.new(size) })
		})
	}
}

// A crowd of waiters is parked when contexts are canceled, some together
// through a shared parent, one at a time for others. Each canceled waiter
// returns context.Canceled holding nothing; the others are not disturbed,
// and every one of them is served as permits come back.
func TestCancelWhileManyParked(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const size, each = 3, 10
				s := v.new(size)
				require.True(t, s.TryAcquire(size))

				groupA, cancelA := context.WithCancel(context.Background())
				groupB, cancelB := context.WithCancel(context.Background())
				defer cancelB()
				type call struct {
					err  error
					done bool
				}
				var mu sync.Mutex
				calls := map[string][]*call{}
				start := func(group string, ctx context.Context) {
					c := new(call)
					calls[group] = append(calls[group], c)
					go func() {
						err := s.Acquire(ctx, 1)
						mu.Lock()
						c.err, c.done = err, true
						mu.Unlock()
					}()
					synctest.Wait() // arrival order: A, B and kept interleaved
				}
				for range each {
					start("A", groupA)
					start("B", groupB)
					start("kept", context.Background())
				}
				count := func(group string, want error) (n int) {
					mu.Lock()
					defer mu.Unlock()
					for _, c := range calls[group] {
						if c.done && errors.Is(c.err, want) {
							n++
						}
					}
					return n
				}

				cancelA()
				synctest.Wait()
				assert.Equal(t, each, count("A", context.Canceled), "waiters whose shared parent was canceled")
				assert.Zero(t, count("B", context.Canceled)+count("kept", nil), "waiters disturbed by others' cancellation")
				assert.Zero(t, s.Available(), "canceled waiters changed the count")

				// Every permit freed now goes to a waiter of group B or
				// kept: none is lost to a waiter that has gone.
				s.Release(size)
				synctest.Wait()
				servedB := count("B", nil)
				require.Equal(t, size, servedB+count("kept", nil), "waiters served by Release(%d)", size)

				cancelB()
				synctest.Wait()
				assert.Equal(t, each-servedB, count("B", context.Canceled), "group B waiters still parked when canceled")

				// The permits now go to the kept waiters, exactly one for
				// each permit released.
				held := size // by the waiters served so far
				for kept := count("kept", nil); kept < each; held++ {
					s.Release(1)
					held--
					synctest.Wait()
					next := count("kept", nil)
					require.Equal(t, kept+1, next, "kept waiters served after one more Release(1)")
					kept = next
				}
				s.Release(int64(held))
				assert.Equal(t, int64(size), s.Available())
			})
		})
	}
}

// registryCtx is a context that counts the AfterFunc registrations made on
// it. context.AfterFunc documents that it uses a context's own
// AfterFunc(func()) func() bool method when there is one, so every
// registration the semaphore makes, and every stop, goes through it.
type registryCtx struct {
	mu    sync.Mutex
	done  chan struct{}
	err   error
	funcs map[int]func() // live registrations
	next  int            // registrations ever made

	// cancelAfterCheck: the first Err call made while a registration is
	// live reports nil, then cancels the context and yields, as if the
	// context became done right after the caller looked.
	cancelAfterCheck bool
}

func newRegistryCtx() *registryCtx {
	return &registryCtx{done: make(chan struct{}), funcs: map[int]func(){}}
}

func (c *registryCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *registryCtx) Done() <-chan struct{}       { return c.done }
func (c *registryCtx) Value(any) any               { return nil }

func (c *registryCtx) Err() error {
	c.mu.Lock()
	err, trap := c.err, c.cancelAfterCheck && len(c.funcs) > 0
	if trap {
		c.cancelAfterCheck = false
	}
	c.mu.Unlock()
	if trap {
		c.cancel()
		for range 1000 {
			runtime.Gosched() // give the wake-up callback its chance to run now
		}
	}
	return err
}

func (c *registryCtx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := c.next
	c.next++
	if c.err != nil {
		go f()
		return func() bool { return false }
	}
	c.funcs[id] = f
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, live := c.funcs[id]
		delete(c.funcs, id)
		return live
	}
}

// cancel makes the context done and runs the registered functions, which
// no longer count as live.
func (c *registryCtx) cancel() {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = context.Canceled
	close(c.done)
	funcs := c.funcs
	c.funcs = map[int]func(){}
	c.mu.Unlock()
	for _, f := range funcs {
		f()
	}
}

// counts reports the registrations ever made and those still live.
func (c *registryCtx) counts() (made, live int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.next, len(c.funcs)
}

// An Acquire registers a wake-up only when it has to wait, and no
// registration survives its return, however it returns.
func TestNoRegistrationSurvivesReturn(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := v.new(2)
				ctx := newRegistryCtx()

				// Calls that never wait register nothing.
				require.NoError(t, s.Acquire(ctx, 1))
				require.NoError(t, s.Acquire(ctx, 0))
				require.ErrorIs(t, s.Acquire(ctx, 3), sem.ErrExceedsSize)
				made, _ := ctx.counts()
				assert.Zero(t, made, "registrations by calls that did not wait")

				// A call that waits and is served.
				require.True(t, s.TryAcquire(1))
				var err error
				done := make(chan struct{})
				go func() {
					err = s.Acquire(ctx, 2)
					close(done)
				}()
				synctest.Wait()
				made, live := ctx.counts()
				require.Equal(t, 1, made, "registrations by one waiting Acquire")
				require.Equal(t, 1, live, "live registrations while it waits")
				s.Release(2)
				<-done
				require.NoError(t, err)
				made, live = ctx.counts()
				assert.Equal(t, 1, made, "registrations by one waiting Acquire")
				assert.Zero(t, live, "registrations left behind by an Acquire that was served")

				// A call that waits and is canceled.
				done = make(chan struct{})
				go func() {
					err = s.Acquire(ctx, 1)
					close(done)
				}()
				synctest.Wait()
				made, live = ctx.counts()
				require.Equal(t, 2, made)
				require.Equal(t, 1, live)
				ctx.cancel()
				<-done
				require.ErrorIs(t, err, context.Canceled)
				_, live = ctx.counts()
				assert.Zero(t, live, "registrations left behind by an Acquire that was canceled")
				s.Release(2)
				assert.Equal(t, int64(2), s.Available())
			})
		})
	}
}

// A stream of small requests overtakes a large one in the plain variant:
// TryAcquire takes permits the large Acquire is waiting for, and as long as
// some permit is always held, the large request waits forever. The fair
// variant refuses the newcomers, so the large request is served as soon as
// the permits held before it arrived come back.
func TestSmallRequestsVersusLargeOne(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const size = 2
				s := v.new(size)
				require.True(t, s.TryAcquire(1)) // a small holder, 1 permit free
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var err error
				done := make(chan struct{})
				go func() {
					err = s.Acquire(ctx, size)
					close(done)
				}()
				synctest.Wait()

				// Small holders take turns, so one permit is always held:
				// the newcomer takes the free one, then the old holder leaves.
				barged := 0
				for range 100 {
					if s.TryAcquire(1) {
						barged++
						s.Release(1) // the previous holder leaves
					} else {
						s.Release(1) // nobody may take a turn: the holder leaves
						break
					}
					synctest.Wait()
				}
				synctest.Wait()
				served := isClosed(done) && err == nil
				if v.name == "plain" {
					assert.Equal(t, 100, barged, "TryAcquire calls that took a permit while Acquire(%d) waited", size)
					assert.False(t, served, "the large request was served though a permit was always held")
					cancel()
					<-done
					require.ErrorIs(t, err, context.Canceled)
					s.Release(1)
				} else {
					assert.Zero(t, barged, "TryAcquire calls that passed the queued Acquire(%d)", size)
					assert.True(t, served, "the large request was not served once the holder left (err %v)", err)
					s.Release(size)
				}
				assert.Equal(t, int64(size), s.Available())
			})
		})
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// A context that becomes done just after the waiter has checked it, before
// it parks in Wait, must still wake it. The context below reports nil from
// the waiter's check and only then is canceled, and it yields so that the
// wake-up callback has every chance to run inside that window. A callback
// that broadcast without taking the mutex would run there, find nobody
// parked, and leave the waiter asleep for good.
func TestCancelBetweenCheckAndWait(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := v.new(1)
				require.True(t, s.TryAcquire(1))
				ctx := newRegistryCtx()
				ctx.cancelAfterCheck = true
				var err error
				done := make(chan struct{})
				go func() {
					err = s.Acquire(ctx, 1)
					close(done)
				}()
				synctest.Wait()
				if !isClosed(done) {
					t.Error("an Acquire whose context was canceled between its check and its Wait stayed parked: a lost wake-up")
					s.Release(1) // hand it the test's permit, so the bubble can end
					<-done
					s.Release(1)
					return
				}
				require.ErrorIs(t, err, context.Canceled)
				s.Release(1)
				assert.Equal(t, int64(1), s.Available())
			})
		})
	}
}
