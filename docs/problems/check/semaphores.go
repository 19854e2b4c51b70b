package check

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/semacat/sem"
)

// NewSemaphore is the constructor a solution builds its semaphores with:
// a semaphore of size permits, of which available are free. Run's
// [Run.NewSemaphore] is one; so are the strategies' NewAvailable.
type NewSemaphore func(size, available int64) sem.Semaphore

// order is how a semaphore chooses among the waiters its permits can
// serve.
type order int

const (
	firstCome order = iota // the longest waiting first: no waiter overtaken
	lastCome               // the newest first: the worst a weak semaphore may do
	anyOrder               // one at random
)

func (o order) String() string {
	return [...]string{"the first comer first", "the last comer first", "waiters at random"}[o]
}

// NewSemaphore returns a semaphore of size permits of which available are
// free, that serves its waiters in the run's order and is a scheduling
// point at each Acquire (before and after the wait), Release and
// TryAcquire. Its signature is that of the constructors the solutions take.
//
// A Release hands its permits straight to the waiters it can serve, in the
// run's order; a goroutine that comes later takes only what is left. A
// first-come run makes a newcomer queue behind any waiter.
func (r *Run) NewSemaphore(size, available int64) sem.Semaphore {
	if r.free != nil {
		return newFreeSemaphore(size, available)
	}
	return r.newSemaphore(size, available, r.order)
}

// NewWeakSemaphore returns a weak semaphore of size permits of which
// available are free: a Release hands its permits to a waiting Acquire if
// one can take them, as the problems' weak semaphores promise, but to the
// one that came last, in every run. That is the worst order a weak
// semaphore may choose: a goroutine that loops back to Acquire overtakes
// every earlier waiter. It is for the no-starve mutex, whose solution must
// not starve anyone even so.
func (r *Run) NewWeakSemaphore(size, available int64) sem.Semaphore {
	if r.free != nil {
		return newFreeSemaphore(size, available)
	}
	return r.newSemaphore(size, available, lastCome)
}

func (r *Run) newSemaphore(size, available int64, o order) *semaphore {
	if size < 1 || available < 0 || available > size {
		panic(fmt.Sprintf("check: NewSemaphore(%d, %d): want 0 <= available <= size and size >= 1", size, available))
	}
	made := "an unknown place"
	if _, file, line, ok := runtime.Caller(2); ok { // the solution's call of NewSemaphore
		made = fmt.Sprintf("%s:%d", filepath.Base(file), line)
	}
	return &semaphore{r: r, size: size, free: available, order: o, made: made}
}

// semaphore is a semaphore whose waiters are goroutines of a run.
type semaphore struct {
	r       *Run
	size    int64
	free    int64
	order   order
	made    string   // where the solution made it, file:line, for verdicts
	waiters []waiter // the oldest first
}

type waiter struct {
	g *goroutine
	n int64
}

func (s *semaphore) Acquire(ctx context.Context, n int64) error {
	if n < 0 {
		panic(fmt.Sprintf("check: semaphore.Acquire(%d): negative weight", n))
	}
	if n > s.size {
		return fmt.Errorf("check: semaphore.Acquire(%d) on a semaphore of size %d: %w", n, s.size, sem.ErrExceedsSize)
	}
	g := s.r.running("Acquire")
	g.failedTries = 0
	s.r.pause()
	if err := s.r.waitErr(g, ctx); err != nil {
		return err
	}
	if s.free >= n && (s.order != firstCome || len(s.waiters) == 0) {
		s.free -= n
	} else {
		s.waiters = append(s.waiters, waiter{g, n})
		g.sem = s
		s.r.blocked = append(s.r.blocked, g)
		s.r.park(g)
		if err := g.err; err != nil {
			g.err = nil
			return err
		}
	}
	s.r.pause()
	return nil
}

func (s *semaphore) TryAcquire(n int64) bool {
	if n < 0 {
		panic(fmt.Sprintf("check: semaphore.TryAcquire(%d): negative weight", n))
	}
	ok := s.free >= n && (s.order != firstCome || len(s.waiters) == 0)
	if ok {
		s.free -= n
	}
	if g := s.r.current; g != nil {
		if ok {
			g.failedTries = 0
		} else {
			s.r.tried(g)
		}
		s.r.pause()
	}
	return ok
}

func (s *semaphore) Release(n int64) {
	if n < 0 {
		panic(fmt.Sprintf("check: semaphore.Release(%d): negative weight", n))
	}
	if s.free+n > s.size {
		panic(fmt.Sprintf("check: Release(%d) of the semaphore made at %s, with %d of its %d permits free: released more than was acquired (make the semaphore bigger if it must count that high)", n, s.made, s.free, s.size))
	}
	s.free += n
	s.serve()
	if g := s.r.current; g != nil {
		g.failedTries = 0
		s.r.pause()
	}
}

// serve hands free permits to waiters, in the run's order, while some
// waiter's weight fits.
func (s *semaphore) serve() {
	for {
		var fit []int // the waiters whose weight fits, oldest first
		for i, w := range s.waiters {
			if w.n <= s.free {
				fit = append(fit, i)
			}
		}
		if len(fit) == 0 || s.order == firstCome && fit[0] != 0 {
			return
		}
		i := fit[0]
		switch s.order {
		case lastCome:
			i = fit[len(fit)-1]
		case anyOrder:
			i = fit[s.r.rng.IntN(len(fit))]
		}
		w := s.waiters[i]
		s.waiters = slices.Delete(s.waiters, i, i+1)
		s.free -= w.n
		w.g.sem = nil
		s.r.blocked = slices.DeleteFunc(s.r.blocked, func(g *goroutine) bool { return g == w.g })
		s.r.ready = append(s.r.ready, w.g)
	}
}

// forget takes g off the waiters, when its wait ends without permits.
func (s *semaphore) forget(g *goroutine) {
	s.waiters = slices.DeleteFunc(s.waiters, func(w waiter) bool { return w.g == g })
	s.serve() // the next in line may fit now
}
