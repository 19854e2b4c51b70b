package solutions_test

import (
	"context"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
)

// Right answers written differently from the book's, to the Little
// Book's not-so-classical problems: the room party and Faneuil Hall.

// queueRoom is the room party with the students the Dean keeps out
// counted and queued: a student who finds the Dean in counts itself
// outside and waits on a queue that the Dean, leaving, opens for all of
// them with one Release. The Dean waits on one semaphore for whatever it
// waits for (a room it may go in, then an empty room); whoever makes that
// true signals it once and hands it the mutex.
type queueRoom struct {
	crowd             int
	mutex             sem.Semaphore
	students, outside int
	deanWaiting       bool // for a room it may go in, or, once in, for an empty one
	deanIn            bool
	deanSignal        sem.Semaphore // comes with the mutex
	outsideQueue      sem.Semaphore
}

func newQueueRoom(n check.NewSemaphore, crowd int) *queueRoom {
	return &queueRoom{crowd: crowd, mutex: n(1, 1), deanSignal: n(1, 0), outsideQueue: n(1024, 0)}
}

// handOver, called holding the mutex, hands it to the Dean if the Dean
// waits for what is now true, or gives it back.
func (p *queueRoom) handOver() {
	mayGoIn := !p.deanIn && (p.students == 0 || p.students > p.crowd)
	if p.deanWaiting && (mayGoIn || p.deanIn && p.students == 0) {
		p.deanWaiting = false
		p.deanSignal.Release(1)
		return
	}
	p.mutex.Release(1)
}

func (p *queueRoom) Student(ctx context.Context, enter, party, leave func()) error {
	if err := p.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	for p.deanIn {
		p.outside++
		p.mutex.Release(1)
		if err := p.outsideQueue.Acquire(ctx, 1); err != nil {
			return err
		}
		if err := p.mutex.Acquire(ctx, 1); err != nil {
			return err
		}
	}
	p.students++
	enter()
	p.handOver()
	party()
	if err := p.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	p.students--
	leave()
	p.handOver()
	return nil
}

func (p *queueRoom) Dean(ctx context.Context, enter, leave func()) error {
	if err := p.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	if p.students > 0 && p.students <= p.crowd {
		if err := p.wait(ctx); err != nil {
			return err
		}
	}
	p.deanIn = true
	enter()
	if p.students > 0 {
		if err := p.wait(ctx); err != nil {
			return err
		}
	}
	leave()
	p.deanIn = false
	p.outsideQueue.Release(int64(p.outside))
	p.outside = 0
	p.mutex.Release(1)
	return nil
}

// wait, called holding the mutex, gives it back and waits until a student
// hands it over with what the Dean waits for.
func (p *queueRoom) wait(ctx context.Context) error {
	p.deanWaiting = true
	p.mutex.Release(1)
	return p.deanSignal.Acquire(ctx, 1)
}

// weightedHall is Faneuil Hall with weighted waits and no mutex: the
// turnstile noJudge guards the count of immigrants come in; each
// immigrant gives a permit of checkedIn as it checks in, and the judge
// waits for as many as came in with one weighted Acquire; it then waits,
// the same way, for the confirmed to get their certificates before it
// leaves.
type weightedHall struct {
	noJudge                         sem.Semaphore
	entered                         int64 // guarded by noJudge
	checkedIn, confirmed, certified sem.Semaphore
}

func newWeightedHall(n check.NewSemaphore, immigrants int) *weightedHall {
	m := int64(immigrants)
	return &weightedHall{noJudge: n(1, 1), checkedIn: n(m, 0), confirmed: n(m, 0), certified: n(m, 0)}
}

func (h *weightedHall) Immigrant(ctx context.Context, c judge.Ceremony) error {
	if err := h.noJudge.Acquire(ctx, 1); err != nil {
		return err
	}
	c.Enter()
	h.entered++
	h.noJudge.Release(1)
	c.CheckIn()
	h.checkedIn.Release(1)
	c.SitDown()
	if err := h.confirmed.Acquire(ctx, 1); err != nil {
		return err
	}
	c.Swear()
	c.GetCertificate()
	h.certified.Release(1)
	if err := h.noJudge.Acquire(ctx, 1); err != nil {
		return err
	}
	c.Leave()
	h.noJudge.Release(1)
	return nil
}

func (h *weightedHall) Spectator(ctx context.Context, enter, spectate, leave func()) error {
	if err := h.noJudge.Acquire(ctx, 1); err != nil {
		return err
	}
	enter()
	h.noJudge.Release(1)
	spectate()
	leave()
	return nil
}

func (h *weightedHall) Judge(ctx context.Context, enter, confirm, leave func()) error {
	if err := h.noJudge.Acquire(ctx, 1); err != nil {
		return err
	}
	enter()
	n := h.entered
	h.entered = 0
	if err := h.checkedIn.Acquire(ctx, n); err != nil {
		return err
	}
	confirm()
	h.confirmed.Release(n)
	if err := h.certified.Acquire(ctx, n); err != nil {
		return err
	}
	leave()
	h.noJudge.Release(1)
	return nil
}
