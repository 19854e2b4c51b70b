package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// noLockOut: the students come in whatever the Dean does, and the Dean
// looks at the count again and again until it may go in.
type noLockOut struct {
	mutex, clear sem.Semaphore
	crowd        int
	students     int
	deanIn       bool
}

func (p *noLockOut) Student(ctx context.Context, enter, party, leave func()) error {
	if err := p.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	p.students++
	enter()
	p.mutex.Release(1)
	party()
	if err := p.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	p.students--
	leave()
	if p.students == 0 && p.deanIn {
		p.clear.Release(1) // the mutex goes with it
	} else {
		p.mutex.Release(1)
	}
	return nil
}

func (p *noLockOut) Dean(ctx context.Context, enter, leave func()) error {
	for {
		if err := p.mutex.Acquire(ctx, 1); err != nil {
			return err
		}
		if p.students == 0 || p.students > p.crowd {
			break
		}
		p.mutex.Release(1)
	}
	p.deanIn = true
	enter()
	if p.students > 0 {
		p.mutex.Release(1)
		if err := p.clear.Acquire(ctx, 1); err != nil {
			return err
		}
	}
	leave()
	p.deanIn = false
	p.mutex.Release(1)
	return nil
}

func TestRoomParty(t *testing.T) {
	type solution = func(check.NewSemaphore, int) judge.PartyRoom
	room := func(n check.NewSemaphore, crowd int) judge.PartyRoom { return solutions.NewPartyRoom(n, crowd) }
	judgeAll(t, judge.Problem30,
		official(room, check.Right[solution]{
			Name:     "QueueOutside",
			Solution: func(n check.NewSemaphore, crowd int) judge.PartyRoom { return newQueueRoom(n, crowd) },
		}),
		check.Wrong[solution]{
			Name:     "DeanAnyTime",
			Solution: func(n check.NewSemaphore, crowd int) judge.PartyRoom { return room(n, 0) },
			Want:     "the Dean goes in only to an empty room or a party of more than 50",
		},
		check.Wrong[solution]{
			Name:     "WaitsPartiesOut",
			Solution: func(n check.NewSemaphore, crowd int) judge.PartyRoom { return room(n, 1000) },
			Want:     "the Dean breaks such a party up, and does not wait it out",
		},
		check.Wrong[solution]{
			Name:     "LeavesAtOnce", // clear starts signalled
			Solution: func(n check.NewSemaphore, crowd int) judge.PartyRoom { return room(remade(n, 4, 1, 1), crowd) },
			Want:     "the Dean leaves only once all have left",
		},
		check.Wrong[solution]{
			Name: "NoLockOut",
			Solution: func(n check.NewSemaphore, crowd int) judge.PartyRoom {
				return &noLockOut{mutex: n(1, 1), clear: n(1, 0), crowd: crowd}
			},
			Want: "while the Dean is in the room: no student comes in then",
		},
		check.Wrong[solution]{
			Name:     "DeanRechecks", // woken without the mutex: a leaver shrinks the party first
			Solution: func(n check.NewSemaphore, crowd int) judge.PartyRoom { return newDeanRechecks(n, crowd) },
			Want:     "the Dean breaks such a party up, and does not wait it out",
		})
}
