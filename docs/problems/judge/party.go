package judge

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/semacat/sem/docs/problems/check"
)

// PartyRoom is what problem 30 asks for: the room party. Students come
// and go; the Dean of Students goes in only to an empty room (to search
// it) or to a party of more than Crowd (to break it up), keeps students
// out while in, and leaves only once the room is empty.
type PartyRoom interface {
	// Student calls enter, party and leave: enter and leave at the
	// moments the room's count of students changes.
	Student(ctx context.Context, enter, party, leave func()) error
	// Dean waits until it may go in, calls enter, and calls leave once
	// nobody is left in the room.
	Dean(ctx context.Context, enter, leave func()) error
}

// Crowd is how many students make a party the Dean breaks up: more than
// Crowd.
const Crowd = 50

// The students of Problem30: a few who party long, the Dean, then a crowd
// that grows the party past Crowd, then students at seeded times while
// the Dean comes twice more.
const (
	earlyStudents = 8
	partyCrowd    = Crowd + 8
	lateStudents  = 12
	longParty     = 300 * check.Tick
)

// The shrinking parties: after a quiet spell (the late students gone), a
// party of Crowd, the Dean waiting, and one student more who comes while
// the others are about to leave.
const (
	quietSpell       = 700 * check.Tick
	shrinkingParties = 4
	deanSettles      = 150 * check.Tick // the Dean is surely waiting by then
	lastEnters       = 30 * check.Tick  // the one more takes that long to come in
	leaveSpread      = 50               // ticks over which the others leave
	patience         = 200              // polls, ten ticks apart, for the one more
)

// shrinkingParty is one shrinking party, run by the Dean's goroutine at
// its visit: Crowd students come and party until the one more (student
// first+Crowd) comes in, then leave one a tick over leaveSpread ticks; so
// while the one more comes in, students queue to leave, and the Dean,
// woken by the one more, goes in before they do only if it is handed the
// room as it is (the mutex), not if it must compete for it.
func shrinkingParty(ctx context.Context, r *check.Run, room PartyRoom, visit, first int) error {
	var entered atomic.Int32
	var crossed atomic.Bool
	for i := first; i < first+Crowd; i++ {
		who := name("student", i)
		r.Go(who, func(ctx context.Context) error {
			return room.Student(ctx, func() { r.Record(who, "enter", i); entered.Add(1) },
				func() {
					r.Record(who, "party", i)
					for range patience { // not forever: the Dean may keep the one more out
						if crossed.Load() {
							break
						}
						r.Sleep(10 * check.Tick)
					}
					r.Sleep(time.Duration(i%leaveSpread) * check.Tick)
				}, func() { r.Record(who, "leave", i) })
		})
	}
	for range patience * 10 { // not forever: the solution may keep them out
		if entered.Load() == Crowd {
			break
		}
		r.Sleep(check.Tick)
	}
	r.Record("dean", "come", visit)
	last := first + Crowd
	who := name("student", last)
	r.Go(who, func(ctx context.Context) error {
		r.Sleep(deanSettles)
		return room.Student(ctx, func() { crossed.Store(true); r.Record(who, "enter", last); r.Sleep(lastEnters) },
			func() { r.Work(who, "party", last, check.Tick) }, func() { r.Record(who, "leave", last) })
	})
	return room.Dean(ctx, func() { r.Record("dean", "enter", visit) }, func() { r.Record("dean", "leave", visit) })
}

// Problem30 is the room party. The scenario: eight students come at once
// and party long; the Dean comes a little later, to a room of eight; then
// a crowd of 58 comes over some thirty ticks, so that the party passes 50 while
// the Dean waits; then twelve students at seeded times, and the Dean's
// second and third visits, one of them most likely to an empty room; then
// four shrinking parties (see shrinkingParty), one for each of the Dean's
// last four visits.
var Problem30 = check.Problem[func(check.NewSemaphore, int) PartyRoom]{
	Seeds:    seeds,
	Laggards: true,
	Scenario: func(r *check.Run, newRoom func(check.NewSemaphore, int) PartyRoom) {
		room := newRoom(r.NewSemaphore, Crowd)
		student := func(i int, at, stay time.Duration) {
			who := name("student", i)
			r.Go(who, func(ctx context.Context) error {
				r.Sleep(at)
				return room.Student(ctx, func() { r.Record(who, "enter", i) },
					func() { r.Work(who, "party", i, stay) }, func() { r.Record(who, "leave", i) })
			})
		}
		for i := range earlyStudents {
			student(i, 0, longParty)
		}
		for i := range partyCrowd {
			student(earlyStudents+i, 40*check.Tick+time.Duration(i/2)*check.Tick, time.Duration(200+r.Rand(100))*check.Tick)
		}
		for i := range lateStudents {
			student(earlyStudents+partyCrowd+i, time.Duration(300+r.Rand(300))*check.Tick, time.Duration(1+r.Rand(20))*check.Tick)
		}
		r.Go("dean", func(ctx context.Context) error {
			for visit, after := range []int{15, 250, 300} {
				r.Sleep(time.Duration(after) * check.Tick)
				r.Record("dean", "come", visit)
				if err := room.Dean(ctx, func() { r.Record("dean", "enter", visit) },
					func() { r.Record("dean", "leave", visit) }); err != nil {
					return err
				}
			}
			r.Sleep(quietSpell)
			for visit := 3; visit < 3+shrinkingParties; visit++ {
				first := earlyStudents + partyCrowd + lateStudents + (visit-3)*(Crowd+1)
				if err := shrinkingParty(ctx, r, room, visit, first); err != nil {
					return err
				}
			}
			return nil
		})
	},
	Rules: deanRules,
}

// deanRules: at each visit the Dean goes in, and leaves; it goes in only
// when no student is in or more than Crowd are; no student comes in while
// the Dean is in; the Dean leaves only an empty room; and a Dean who
// waited while the party was bigger than Crowd goes in before the room is
// empty again (it breaks the party up, rather than wait it out).
func deanRules(log []check.Event) error {
	in, dean := 0, "away"
	bigWhileWaiting := false
	for _, e := range log {
		switch {
		case e.Who == "dean" && e.What == "come":
			dean, bigWhileWaiting = "waiting", in > Crowd
		case e.Who == "dean" && e.What == "enter" && dean != "waiting":
			return fmt.Errorf("%v: the Dean is in already", e)
		case e.Who == "dean" && e.What == "leave" && dean != "in":
			return fmt.Errorf("%v: the Dean is not in the room", e)
		case e.Who == "dean" && e.What == "enter":
			if in > 0 && in <= Crowd {
				return fmt.Errorf("%v with %d students in the room: the Dean goes in only to an empty room or a party of more than %d", e, in, Crowd)
			}
			if in == 0 && bigWhileWaiting {
				return fmt.Errorf("%v to an empty room, but more than %d partied while the Dean waited: the Dean breaks such a party up, and does not wait it out", e, Crowd)
			}
			dean = "in"
		case e.Who == "dean" && e.What == "leave":
			if in > 0 {
				return fmt.Errorf("%v with %d students still in the room: the Dean leaves only once all have left", e, in)
			}
			dean = "away"
		case e.What == "enter":
			if dean == "in" {
				return fmt.Errorf("%v while the Dean is in the room: no student comes in then", e)
			}
			if in++; in > Crowd && dean == "waiting" {
				bigWhileWaiting = true
			}
		case e.What == "leave":
			in--
		}
	}
	if dean != "away" {
		return fmt.Errorf("the Dean's visit ended with the Dean %s: the Dean goes in and leaves at each visit", map[string]string{"waiting": "never gone in", "in": "still in the room"}[dean])
	}
	return nil
}
