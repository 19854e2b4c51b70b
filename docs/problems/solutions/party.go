package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// Where the Dean of Students is, for PartyRoom.
const (
	deanAway = iota
	deanWaiting
	deanIn
)

// PartyRoom is the room party: students come and go; the Dean of
// Students goes in only to an empty room or to a party of more than a
// crowd, keeps students out while in, and leaves only an empty room.
//
// A mutex guards the count of students and where the Dean is. A Dean who
// may not go in yet waits on lieIn; the student whose coming makes the
// party big enough, or whose leaving empties the room, wakes the Dean and
// hands it the mutex (passing the baton), so nothing changes before the
// Dean goes in. A Dean breaking up a party holds turn, a turnstile that
// students who find the Dean in pass before they look again, and waits on
// clear, which the last student out signals, again with the mutex.
type PartyRoom struct {
	crowd    int
	mutex    sem.Semaphore // one permit: guards students and dean
	students int
	dean     int
	turn     sem.Semaphore // one permit, held by the Dean while in
	lieIn    sem.Semaphore // the Dean may go in: comes with the mutex
	clear    sem.Semaphore // the room is empty: comes with the mutex
}

// NewPartyRoom returns an empty room whose parties the Dean breaks up
// when more than crowd students are in.
func NewPartyRoom(newSemaphore NewSemaphore, crowd int) *PartyRoom {
	return &PartyRoom{
		crowd: crowd,
		mutex: newSemaphore(1, 1),
		turn:  newSemaphore(1, 1),
		lieIn: newSemaphore(1, 0),
		clear: newSemaphore(1, 0),
	}
}

// Student comes in once the Dean is not in, parties, and leaves.
func (p *PartyRoom) Student(ctx context.Context, enter, party, leave func()) error {
	if err := p.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	for p.dean == deanIn {
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
	if p.students > p.crowd && p.dean == deanWaiting {
		p.lieIn.Release(1) // the mutex goes with it
	} else {
		p.mutex.Release(1)
	}

	party()

	if err := p.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	p.students--
	leave()
	switch {
	case p.students == 0 && p.dean == deanWaiting:
		p.lieIn.Release(1) // the mutex goes with it
	case p.students == 0 && p.dean == deanIn:
		p.clear.Release(1) // the mutex goes with it
	default:
		p.mutex.Release(1)
	}
	return nil
}

// Dean waits until the room is empty or holds a party of more than the
// crowd, goes in, and leaves once the room is empty.
func (p *PartyRoom) Dean(ctx context.Context, enter, leave func()) error {
	if err := p.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	if p.students > 0 && p.students <= p.crowd {
		p.dean = deanWaiting
		p.mutex.Release(1)
		if err := p.lieIn.Acquire(ctx, 1); err != nil { // wakes holding the mutex
			return err
		}
	}
	p.dean = deanIn
	enter()
	if p.students > 0 { // break up the party
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
	p.dean = deanAway
	p.mutex.Release(1)
	return nil
}
