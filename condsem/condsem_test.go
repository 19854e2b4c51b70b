package condsem_test

import (
	"context"
	"errors"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

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

// A wait whose context can be canceled allocates nothing once the
// semaphore has seen as many waiters: each round below is an Acquire that
// waits on a cancelable context until a helper releases the permit.
func TestWaitAllocatesNothing(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			s := v.new(1)
			require.True(t, s.TryAcquire(1))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			waiting := s.(interface{ Waiting() (int, int64) })
			release := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				for range release {
					for r, _ := waiting.Waiting(); r == 0; r, _ = waiting.Waiting() {
						runtime.Gosched()
					}
					s.Release(1)
				}
			}()
			allocs := testing.AllocsPerRun(100, func() {
				release <- struct{}{}
				if err := s.Acquire(ctx, 1); err != nil {
					t.Fatal(err)
				}
			})
			close(release)
			<-done
			assert.Zero(t, allocs, "allocations per waiting Acquire")
			s.Release(1)
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

// trapCtx is a context whose Err reports nil on its call number trapAt and
// cancels the context right after, yielding, as if it became done just
// after the caller looked.
type trapCtx struct {
	context.Context
	cancel func()
	calls  atomic.Int32
	trapAt int32
}

func (c *trapCtx) Err() error {
	err := c.Context.Err()
	if c.calls.Add(1) == c.trapAt {
		c.cancel()
		for range 1000 {
			runtime.Gosched() // give a wake-up that would be lost its chance to run now
		}
	}
	return err
}

// A context that becomes done just after the waiter has checked it, before
// it parks, must still wake it. The context below reports nil from the
// waiter's check under the mutex (its second Err call; the first is the
// look before the fast path) and only then is canceled.
func TestCancelBetweenCheckAndWait(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := v.new(1)
				require.True(t, s.TryAcquire(1))
				parent, cancel := context.WithCancel(context.Background())
				ctx := &trapCtx{Context: parent, cancel: cancel, trapAt: 2}
				var err error
				done := make(chan struct{})
				go func() {
					err = s.Acquire(ctx, 1)
					close(done)
				}()
				synctest.Wait()
				require.GreaterOrEqual(t, ctx.calls.Load(), int32(2), "the waiter never checked its context")
				if !isClosed(done) {
					t.Error("an Acquire whose context was canceled between its check and its wait stayed parked: a lost wake-up")
					s.Release(1) // a broadcast, so that it ends, canceled
					<-done
					return
				}
				require.ErrorIs(t, err, context.Canceled)
				s.Release(1)
				assert.Equal(t, int64(1), s.Available())
			})
		})
	}
}

func TestWaitingSaturates(t *testing.T) {
	t.Run("broadcast", func(t *testing.T) {
		acquiretest.WaitingSaturates(t, func() interface {
			sem.Semaphore
			sem.Observer
		} {
			return condsem.NewAvailable(math.MaxInt64, 0)
		})
	})
	t.Run("fair", func(t *testing.T) {
		acquiretest.WaitingSaturates(t, func() interface {
			sem.Semaphore
			sem.Observer
		} {
			return condsem.NewFairAvailable(math.MaxInt64, 0)
		})
	})
}
