package check

import (
	"context"
	"slices"
	"sync"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/condsem"
	"github.com/semacat/sem/spinsem"
	"github.com/semacat/sem/weighted"
)

// Strategy builds semaphores of one kind: size permits, of which available
// are free.
type Strategy struct {
	Name string
	New  func(size, available int64) sem.Semaphore
}

// Strategies are the strategies a run draws its semaphores from, seed
// after seed in this order. A right solution must be right on each.
var Strategies = []Strategy{
	{"weighted", func(size, available int64) sem.Semaphore { return weighted.NewAvailable(size, available) }},
	{"condsem", func(size, available int64) sem.Semaphore { return condsem.NewAvailable(size, available) }},
	{"chansem", func(size, available int64) sem.Semaphore { return chansem.NewAvailable(size, available) }},
	{"spinsem", func(size, available int64) sem.Semaphore { return spinsem.NewAvailable(size, available) }},
	{"condsem-fair", func(size, available int64) sem.Semaphore { return condsem.NewFairAvailable(size, available) }},
}

// NewSemaphore returns a semaphore of the run's strategy, of size permits
// of which available are free, that sleeps a seeded number of ticks before
// and after each Acquire and after each Release. Its signature is that of
// the constructors the solutions take.
func (r *Run) NewSemaphore(size, available int64) sem.Semaphore {
	return nudged{r.strategy.New(size, available), r}
}

// nudged moves time between the semaphore operations of a solution, so
// that other goroutines run there.
type nudged struct {
	s sem.Semaphore
	r *Run
}

func (n nudged) Acquire(ctx context.Context, k int64) error {
	n.r.pause()
	if err := n.s.Acquire(ctx, k); err != nil {
		return err
	}
	n.r.pause()
	return nil
}

func (n nudged) TryAcquire(k int64) bool { return n.s.TryAcquire(k) }

func (n nudged) Release(k int64) {
	n.s.Release(k)
	n.r.pause()
}

// NewWeakSemaphore returns a weak semaphore of size permits of which
// available are free: a Release hands its permits to a waiting Acquire if
// one can take them, as the problems' weak semaphores promise, but to the
// one that came last. That is the worst order a weak semaphore may choose:
// a goroutine that loops back to Acquire overtakes every earlier waiter.
// It is for the no-starve mutex, whose solution must not starve anyone
// even so. Its TryAcquire never takes permits from a waiter.
func (r *Run) NewWeakSemaphore(size, available int64) sem.Semaphore {
	return nudged{&lifo{free: available, size: size}, r}
}

// lifo is a semaphore that serves its waiters last come, first served.
type lifo struct {
	mu      sync.Mutex
	size    int64
	free    int64
	waiters []*lifoWaiter // the newest last
}

type lifoWaiter struct {
	n       int64
	granted chan struct{}
}

func (l *lifo) Acquire(ctx context.Context, n int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	if len(l.waiters) == 0 && l.free >= n {
		l.free -= n
		l.mu.Unlock()
		return nil
	}
	w := &lifoWaiter{n: n, granted: make(chan struct{})}
	l.waiters = append(l.waiters, w)
	l.mu.Unlock()
	select {
	case <-w.granted:
		return nil
	case <-ctx.Done():
		l.mu.Lock()
		defer l.mu.Unlock()
		select {
		case <-w.granted: // granted first: give the permits back
			l.free += n
			l.grant()
		default:
			i := slices.Index(l.waiters, w)
			l.waiters = slices.Delete(l.waiters, i, i+1)
		}
		return ctx.Err()
	}
}

func (l *lifo) TryAcquire(n int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.waiters) > 0 || l.free < n {
		return false
	}
	l.free -= n
	return true
}

func (l *lifo) Release(n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.free+n > l.size {
		panic("check: weak semaphore: released more than held")
	}
	l.free += n
	l.grant()
}

// grant hands free permits to the newest waiters while they fit.
func (l *lifo) grant() {
	for len(l.waiters) > 0 {
		w := l.waiters[len(l.waiters)-1]
		if w.n > l.free {
			return
		}
		l.free -= w.n
		l.waiters = l.waiters[:len(l.waiters)-1]
		close(w.granted)
	}
}
