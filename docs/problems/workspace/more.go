package workspace

import (
	"context"

	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
)

// Problem 20: searchers with each other and one inserter; a deleter alone.
type List struct{}

// NewList returns a list nobody works on.
func NewList(newSemaphore check.NewSemaphore) *List { return &List{} }

// Search calls search once no deleter works.
func (l *List) Search(ctx context.Context, search func()) error { return todo(20) }

// Insert calls insert once no deleter and no other inserter works.
func (l *List) Insert(ctx context.Context, insert func()) error { return todo(20) }

// Delete calls delete once nobody else works.
func (l *List) Delete(ctx context.Context, delete func()) error { return todo(20) }

// Problem 21: women and men never in at once, at most judge.BathroomSize.
type Bathroom struct{}

// NewBathroom returns an empty bathroom.
func NewBathroom(newSemaphore check.NewSemaphore) *Bathroom { return &Bathroom{} }

// Woman waits for her turn and calls use.
func (b *Bathroom) Woman(ctx context.Context, use func()) error { return todo(21) }

// Man waits for his turn and calls use.
func (b *Bathroom) Man(ctx context.Context, use func()) error { return todo(21) }

// Problem 22: a bar of judge.SushiSeats; a full bar empties before anyone
// sits.
type SushiBar struct{}

// NewSushiBar returns an empty bar.
func NewSushiBar(newSemaphore check.NewSemaphore) *SushiBar { return &SushiBar{} }

// Eat takes a seat, or waits for the next party, and calls eat.
func (b *SushiBar) Eat(ctx context.Context, eat func()) error { return todo(22) }

// Problem 23: a roller coaster car of judge.CarSeats.
type Coaster struct{}

// NewCoaster returns an empty car of seats seats.
func NewCoaster(newSemaphore check.NewSemaphore, seats int) *Coaster { return &Coaster{} }

// Car loads, runs full, and unloads, until ctx is done.
func (c *Coaster) Car(ctx context.Context, load, run, unload func()) error { return todo(23) }

// Passenger boards while the car loads and leaves while it unloads.
func (c *Coaster) Passenger(ctx context.Context, board, unboard func()) error { return todo(23) }

// Problem 24: the Senate bus, of judge.BusCapacity seats.
type BusStop struct{}

// NewBusStop returns an empty stop served by buses of capacity seats.
func NewBusStop(newSemaphore check.NewSemaphore, capacity int) *BusStop { return &BusStop{} }

// Rider waits at the stop for a bus and boards it.
func (s *BusStop) Rider(ctx context.Context, board func()) error { return todo(24) }

// Bus takes the riders waiting, up to its capacity, and departs.
func (s *BusStop) Bus(ctx context.Context, depart func()) error { return todo(24) }

// Problem 25: at most judge.ChildrenPerAdult children per adult.
type ChildCare struct{}

// NewChildCare returns an empty center for at most adults adults at once.
func NewChildCare(newSemaphore check.NewSemaphore, adults int) *ChildCare { return &ChildCare{} }

// Child waits until an adult can watch it, stays, and leaves.
func (c *ChildCare) Child(ctx context.Context, stay func()) error { return todo(25) }

// Adult comes in, stays, and leaves once the children left do not need it.
func (c *ChildCare) Adult(ctx context.Context, stay func()) error { return todo(25) }

// Problem 26: nobody leaves another student dining alone.
type DiningHall struct{}

// NewDiningHall returns an empty hall.
func NewDiningHall(newSemaphore check.NewSemaphore) *DiningHall { return &DiningHall{} }

// Student sits down, dines, and leaves, calling sit, dine and leave at
// those moments.
func (h *DiningHall) Student(ctx context.Context, sit, dine, leave func()) error { return todo(26) }

// Problem 27: judge.CarsOnTrack cars of judge.CarSeats on one track.
type Cars struct{}

// NewCars returns cars cars of seats seats; car 0 loads first.
func NewCars(newSemaphore check.NewSemaphore, cars, seats int) *Cars { return &Cars{} }

// Car is car car: in its turn it loads until full, runs, and in its turn
// unloads, until ctx is done.
func (c *Cars) Car(ctx context.Context, car int, load, run, unload func()) error { return todo(27) }

// Passenger boards the car that loads and gets off when it unloads.
func (c *Cars) Passenger(ctx context.Context, board, unboard func()) error { return todo(27) }

// Problem 28: a rope that holds judge.RopeHolds baboons, going one way.
type Rope struct{}

// NewRope returns an empty rope.
func NewRope(newSemaphore check.NewSemaphore) *Rope { return &Rope{} }

// East crosses going east.
func (r *Rope) East(ctx context.Context, cross func()) error { return todo(28) }

// West crosses going west.
func (r *Rope) West(ctx context.Context, cross func()) error { return todo(28) }

// Problem 29: Hilzer's barbershop, judge.ShopBarbers barbers and chairs,
// a sofa of judge.SofaSeats.
type HilzerShop struct{}

// NewHilzerShop returns an empty shop with room for holds customers.
func NewHilzerShop(newSemaphore check.NewSemaphore, holds int) *HilzerShop {
	return &HilzerShop{}
}

// Customer is customer id's visit: v's steps in order, or v.Balk alone.
func (s *HilzerShop) Customer(ctx context.Context, id int, v judge.Visit) (bool, error) {
	return false, todo(29)
}

// Barber cuts hair and takes payments until ctx is done.
func (s *HilzerShop) Barber(ctx context.Context, cutHair, acceptPayment func(customer int)) error {
	return todo(29)
}

// Problem 30: the room party; the Dean breaks up parties of more than
// judge.Crowd.
type PartyRoom struct{}

// NewPartyRoom returns an empty room whose parties of more than crowd the
// Dean breaks up.
func NewPartyRoom(newSemaphore check.NewSemaphore, crowd int) *PartyRoom { return &PartyRoom{} }

// Student comes in once the Dean is not in, parties, and leaves.
func (p *PartyRoom) Student(ctx context.Context, enter, party, leave func()) error {
	return todo(30)
}

// Dean goes in to an empty room or a big party, and leaves an empty room.
func (p *PartyRoom) Dean(ctx context.Context, enter, leave func()) error { return todo(30) }

// Problem 31: Faneuil Hall, for judge.Immigrants immigrants.
type Hall struct{}

// NewHall returns an empty hall for as many as immigrants immigrants.
func NewHall(newSemaphore check.NewSemaphore, immigrants int) *Hall { return &Hall{} }

// Immigrant calls c's steps in order, swearing once a judge confirmed it.
func (h *Hall) Immigrant(ctx context.Context, c judge.Ceremony) error { return todo(31) }

// Spectator comes in when no judge is in, watches, and leaves.
func (h *Hall) Spectator(ctx context.Context, enter, spectate, leave func()) error {
	return todo(31)
}

// Judge comes in, confirms the immigrants once all have checked in, and
// leaves.
func (h *Hall) Judge(ctx context.Context, enter, confirm, leave func()) error { return todo(31) }
