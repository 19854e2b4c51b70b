package solutions_test

import (
	"context"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
)

// deanRechecks is the room party with the baton dropped: the student who
// makes the party big (or empties the room) wakes the Dean but lets go of
// the mutex, and the Dean takes the mutex again and looks once more, in a
// loop. A student who leaves meanwhile shrinks the party back to the
// crowd; the Dean waits again, and goes in only once the room is empty:
// it waits the party out.
type deanRechecks struct {
	crowd                     int
	mutex, turn, lieIn, clear sem.Semaphore
	students                  int
	dean                      int
}

func newDeanRechecks(n check.NewSemaphore, crowd int) *deanRechecks {
	return &deanRechecks{crowd: crowd, mutex: n(1, 1), turn: n(1, 1), lieIn: n(1, 0), clear: n(1, 0)}
}

// wake wakes a waiting Dean, without the mutex.
func (p *deanRechecks) wake() {
	if p.dean == waiting {
		p.dean = woken
		p.lieIn.Release(1)
	}
}

// Where the Dean is, for deanRechecks; woken: woken, and not looked again
// yet.
const (
	away = iota
	waiting
	woken
	in
)

func (p *deanRechecks) Student(ctx context.Context, enter, party, leave func()) error {
	if err := p.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	for p.dean == in {
		p.mutex.Release(1)
		if err := p.turn.Acquire(ctx, 1); err != nil {
			return err
		}
		p.turn.Release(1)
		if err := p.mutex.Acquire(ctx, 1); err != nil {
			return err
		}
	}
	p.students++
	enter()
	if p.students > p.crowd {
		p.wake()
	}
	p.mutex.Release(1)
	party()
	if err := p.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	p.students--
	leave()
	switch {
	case p.students == 0 && p.dean == in:
		p.clear.Release(1) // the mutex goes with it
	case p.students == 0:
		p.wake()
		p.mutex.Release(1)
	default:
		p.mutex.Release(1)
	}
	return nil
}

func (p *deanRechecks) Dean(ctx context.Context, enter, leave func()) error {
	if err := p.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	for p.students > 0 && p.students <= p.crowd {
		p.dean = waiting
		p.mutex.Release(1)
		if err := p.lieIn.Acquire(ctx, 1); err != nil {
			return err
		}
		if err := p.mutex.Acquire(ctx, 1); err != nil { // looks again
			return err
		}
	}
	p.dean = in
	enter()
	if p.students > 0 {
		if err := p.turn.Acquire(ctx, 1); err != nil {
			return err
		}
		p.mutex.Release(1)
		if err := p.clear.Acquire(ctx, 1); err != nil { // wakes holding the mutex
			return err
		}
		p.turn.Release(1)
	}
	leave()
	p.dean = away
	p.mutex.Release(1)
	return nil
}
