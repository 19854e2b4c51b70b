package solutions_test

import (
	"context"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
)

// Right answers written differently from the book's, so that each checker
// is shown to accept more than the one answer it was written with.

// passedOn is a signal whose waiter puts the permit back: any number of
// waiters go through once it is sent.
type passedOn struct{ sent sem.Semaphore }

func (s passedOn) Send() { s.sent.Release(1) }

func (s passedOn) Wait(ctx context.Context) error {
	if err := s.sent.Acquire(ctx, 1); err != nil {
		return err
	}
	s.sent.Release(1)
	return nil
}

// aWaitsFirst is a rendezvous where A waits before it announces, and B
// announces before it waits: slower by one switch, but right.
type aWaitsFirst struct{ aArrived, bArrived sem.Semaphore }

func (w aWaitsFirst) A(ctx context.Context) error { return meet(ctx, w.bArrived, w.aArrived) }
func (w aWaitsFirst) B(ctx context.Context) error {
	w.bArrived.Release(1)
	return w.aArrived.Acquire(ctx, 1)
}

// heavySeats is a multiplex of seats seats in which everyone takes two
// permits of a semaphore of twice as many.
type heavySeats struct{ room sem.Semaphore }

func newHeavySeats(n check.NewSemaphore, seats int64) heavySeats {
	return heavySeats{n(2*seats, 2*seats)}
}

func (g heavySeats) Do(ctx context.Context, critical func()) error {
	if err := g.room.Acquire(ctx, 2); err != nil {
		return err
	}
	defer g.room.Release(2)
	critical()
	return nil
}

// openForAll is a single-use barrier whose last arrival opens the
// turnstile for all n at once instead of passing it on one by one.
type openForAll struct {
	mutex, gate sem.Semaphore
	arrived, n  int64
}

func (b *openForAll) Wait(ctx context.Context) error {
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	b.arrived++
	if b.arrived == b.n {
		b.gate.Release(b.n)
	}
	b.mutex.Release(1)
	return b.gate.Acquire(ctx, 1)
}

// twoTurnstiles is the reusable barrier with turnstiles that each
// goroutine passes on to the next: the last in opens the first and shuts
// the second, the last out opens the second and shuts the first.
type twoTurnstiles struct {
	mutex, turnstile1, turnstile2 sem.Semaphore
	count, n                      int
}

func newTwoTurnstiles(ns check.NewSemaphore, n int) *twoTurnstiles {
	return &twoTurnstiles{mutex: ns(1, 1), turnstile1: ns(1, 0), turnstile2: ns(1, 1), n: n}
}

func (b *twoTurnstiles) Wait(ctx context.Context) error {
	if err := b.step(ctx, 1, b.n, b.turnstile2, b.turnstile1); err != nil {
		return err
	}
	return b.step(ctx, -1, 0, b.turnstile1, b.turnstile2)
}

// step counts this goroutine in (delta 1) or out (-1); the one that brings
// the count to last shuts the other turnstile and opens this one; then it
// passes this one, opening it again for the next.
func (b *twoTurnstiles) step(ctx context.Context, delta, last int, shut, open sem.Semaphore) error {
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	b.count += delta
	if b.count == last {
		if err := shut.Acquire(ctx, 1); err != nil {
			return err
		}
		open.Release(1)
	}
	b.mutex.Release(1)
	if err := open.Acquire(ctx, 1); err != nil {
		return err
	}
	open.Release(1)
	return nil
}

// pairMutexes is an exclusive queue in which one leader and one follower
// at a time hold their side's mutex, meet, and dance. A side's "here"
// signal may be pending twice: the next leader can announce itself before
// the last follower has taken the last leader's announcement (with room
// for one, the checker saw a Release panic).
type pairMutexes struct{ leaders, followers, leaderHere, followerHere sem.Semaphore }

func newPairMutexes(n check.NewSemaphore) pairMutexes {
	return pairMutexes{n(1, 1), n(1, 1), n(2, 0), n(2, 0)}
}

func (q pairMutexes) Leader(ctx context.Context, dance func()) error {
	return q.pair(ctx, q.leaders, q.leaderHere, q.followerHere, dance)
}

func (q pairMutexes) Follower(ctx context.Context, dance func()) error {
	return q.pair(ctx, q.followers, q.followerHere, q.leaderHere, dance)
}

func (q pairMutexes) pair(ctx context.Context, side, here, partner sem.Semaphore, dance func()) error {
	if err := side.Acquire(ctx, 1); err != nil {
		return err
	}
	defer side.Release(1)
	here.Release(1)
	if err := partner.Acquire(ctx, 1); err != nil {
		return err
	}
	dance()
	return nil
}

// lateUnlock is a lightswitch whose last reader out gives the mutex back
// before it unlocks the room: a reader that comes in between finds the
// count at zero and waits for the room, which is about to be free.
type lateUnlock struct {
	mutex  sem.Semaphore
	inside int
}

func (l *lateUnlock) Lock(ctx context.Context, room sem.Semaphore) error {
	if err := l.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	defer l.mutex.Release(1)
	if l.inside == 0 {
		if err := room.Acquire(ctx, 1); err != nil {
			return err
		}
	}
	l.inside++
	return nil
}

func (l *lateUnlock) Unlock(ctx context.Context, room sem.Semaphore) error {
	if err := l.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	l.inside--
	last := l.inside == 0
	l.mutex.Release(1)
	if last {
		room.Release(1)
	}
	return nil
}

// sliceBuffer is the bounded buffer on a slice instead of a ring.
type sliceBuffer struct {
	mutex, spaces, items sem.Semaphore
	queue                []int
}

func newSliceBuffer(n check.NewSemaphore, capacity int) *sliceBuffer {
	c := int64(capacity)
	return &sliceBuffer{mutex: n(1, 1), spaces: n(c, c), items: n(c, 0)}
}

func (b *sliceBuffer) Put(ctx context.Context, item int) error {
	if err := b.spaces.Acquire(ctx, 1); err != nil {
		return err
	}
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	b.queue = append(b.queue, item)
	b.mutex.Release(1)
	b.items.Release(1)
	return nil
}

func (b *sliceBuffer) Take(ctx context.Context) (int, error) {
	if err := b.items.Acquire(ctx, 1); err != nil {
		return 0, err
	}
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return 0, err
	}
	item := b.queue[0]
	b.queue = b.queue[1:]
	b.mutex.Release(1)
	b.spaces.Release(1)
	return item, nil
}

// footman seats at most n-1 philosophers at the table at once; then all
// may take the left fork first, since one of them always gets both.
type footman struct {
	seats sem.Semaphore
	forks []sem.Semaphore
}

func newFootman(ns check.NewSemaphore, n int) footman {
	f := footman{seats: ns(int64(n-1), int64(n-1)), forks: make([]sem.Semaphore, n)}
	for i := range f.forks {
		f.forks[i] = ns(1, 1)
	}
	return f
}

func (f footman) Eat(ctx context.Context, i int, eat func()) error {
	if err := f.seats.Acquire(ctx, 1); err != nil {
		return err
	}
	defer f.seats.Release(1)
	return leftFirst{f.forks}.Eat(ctx, i, eat)
}
