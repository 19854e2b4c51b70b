package philosophers_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"

	"github.com/semacat/sem/chansem"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const (
	philosophers = 5
	patience     = time.Second      // how long dinner may last
	reach        = time.Millisecond // between taking one fork and reaching for the other
	eating       = 10 * time.Millisecond
)

// forks returns one fork, a semaphore of size 1, between each two
// philosophers; philosopher i sits between forks i and i+1.
func forks() []*chansem.Semaphore {
	f := make([]*chansem.Semaphore, philosophers)
	for i := range f {
		f[i] = chansem.New(1)
	}
	return f
}

// A cure is how philosopher i gets both forks and eats; it returns an error
// if it gave up when ctx was done.
type cure func(ctx context.Context, forks []*chansem.Semaphore, i int) error

// dine seats the philosophers, each following the cure, and reports how many
// ate, how many gave up, and how long dinner lasted on the simulated clock.
func dine(c cure) (ate, gaveUp int64, took time.Duration) {
	f := forks()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	var eaten, quit atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for i := range philosophers {
		wg.Go(func() {
			if c(ctx, f, i) != nil {
				quit.Add(1)
				return
			}
			eaten.Add(1)
		})
	}
	wg.Wait()
	return eaten.Load(), quit.Load(), time.Since(start)
}

// eat holds both forks, already acquired, while eating, then puts them down.
func eat(f []*chansem.Semaphore, a, b int) {
	time.Sleep(eating)
	f[b].Release(1)
	f[a].Release(1)
}

// takeAndEat takes fork a, then fork b, waiting for each, and eats; it
// gives up with nothing held when ctx is done.
func takeAndEat(ctx context.Context, f []*chansem.Semaphore, a, b int) error {
	if err := f[a].Acquire(ctx, 1); err != nil {
		return err
	}
	time.Sleep(reach)
	if err := f[b].Acquire(ctx, 1); err != nil {
		f[a].Release(1)
		return err
	}
	eat(f, a, b)
	return nil
}

// ordered: the lower-numbered fork first.
func ordered(ctx context.Context, f []*chansem.Semaphore, i int) error {
	a, b := i, (i+1)%philosophers
	return takeAndEat(ctx, f, min(a, b), max(a, b))
}

// withWaiter returns the waiter cure: at most philosophers-1 may reach for
// forks at once, each taking its left fork first as in the deadlock.
func withWaiter() cure {
	room := chansem.New(philosophers - 1)
	return func(ctx context.Context, f []*chansem.Semaphore, i int) error {
		if err := room.Acquire(ctx, 1); err != nil {
			return err
		}
		defer room.Release(1)
		return takeAndEat(ctx, f, i, (i+1)%philosophers)
	}
}

// backingOff returns the try-and-back-off cure: left fork, then TryAcquire
// the right one; on failure, hold the left a moment longer, put it down and
// wait backoff(i) before trying again. It counts the tries in tries.
func backingOff(backoff func(i int) time.Duration, tries *atomic.Int64) cure {
	return func(ctx context.Context, f []*chansem.Semaphore, i int) error {
		a, b := i, (i+1)%philosophers
		for {
			if err := f[a].Acquire(ctx, 1); err != nil {
				return err
			}
			tries.Add(1)
			time.Sleep(reach)
			if f[b].TryAcquire(1) {
				eat(f, a, b)
				return nil
			}
			time.Sleep(reach) // put the fork down only after every neighbor looked
			f[a].Release(1)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(backoff(i)):
			}
		}
	}
}

// Each cure lets every philosopher eat, well before the deadline.
func TestCuresLetEveryoneEat(t *testing.T) {
	requireAsked(t)
	random := func() func(int) time.Duration {
		var mu sync.Mutex
		rng := rand.New(rand.NewPCG(1, 2))
		return func(int) time.Duration {
			mu.Lock()
			defer mu.Unlock()
			return time.Duration(rng.Int64N(int64(10 * reach)))
		}
	}
	for name, newCure := range map[string]func() cure{
		"ordered":        func() cure { return ordered },
		"waiter":         withWaiter,
		"random-backoff": func() cure { return backingOff(random(), new(atomic.Int64)) },
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ate, gaveUp, took := dine(newCure())
				assert.Equal(t, int64(philosophers), ate)
				assert.Zero(t, gaveUp)
				assert.Less(t, took, patience)
			})
		})
	}
}

// With the same back-off for everyone, the philosophers move in lockstep:
// each takes its left fork at the same instant, finds its right fork taken,
// puts its left fork down, and comes back at the same instant again. Nobody
// eats, nobody is blocked: a livelock, ended only by the deadline.
func TestFixedBackoffLivelocks(t *testing.T) {
	requireAsked(t)
	synctest.Test(t, func(t *testing.T) {
		var tries atomic.Int64
		ate, gaveUp, took := dine(backingOff(func(int) time.Duration { return reach }, &tries))
		assert.Zero(t, ate)
		// A round (take, look, put down, back off) lasts three reaches: each
		// philosopher tried in every round until the deadline, not blocked.
		assert.GreaterOrEqual(t, tries.Load(), int64(philosophers*(patience/(3*reach))))
		assert.Equal(t, int64(philosophers), gaveUp)
		// The deadline finds each one in a pause of at most two reaches.
		assert.GreaterOrEqual(t, took, patience, "the livelock ends only by the deadline")
		assert.LessOrEqual(t, took, patience+2*reach)
	})
}
