package solutions

import (
	"context"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/judge"
)

// Visit is what a customer of Hilzer's barbershop does, in order.
type Visit = judge.Visit

// HilzerShop is Hilzer's barbershop: judge.ShopBarbers barbers, as many
// barber chairs, a sofa of judge.SofaSeats, and room for a number of
// customers in all.
//
// The two lines, standing to the sofa and sofa to a chair, must keep
// their order in what the customers do, not only in whom a semaphore
// wakes: two customers woken in order may still sit down in the other
// order. So each line is a chain: a customer, once in the shop, waits
// until the one ahead of it has sat on the sofa, then for a place there;
// once on the sofa, until the one ahead has sat in a barber chair, then
// for a chair. Only the head of a line waits on the sofa's or the chairs'
// multiplex, so the order in which a multiplex serves its waiters does
// not matter. The barbers find the customers in the chairs, and those who
// have paid, in queues under the mutex; every customer brings a
// semaphore of its own on which it waits for its haircut and its receipt.
type HilzerShop struct {
	holds     int           // customers the shop has room for
	mutex     sem.Semaphore // one permit: guards everything below
	inside    int
	lastIn    sem.Semaphore // signalled once the last to come in sits on the sofa
	lastSat   sem.Semaphore // signalled once the last to sit moves to a chair
	chairs    []hilzerCustomer
	paid      []hilzerCustomer
	sofa      sem.Semaphore // places on the sofa
	chair     sem.Semaphore // barber chairs
	seated    sem.Semaphore // customers in a chair a barber has not taken
	cash      sem.Semaphore // payments waiting for a barber
	register  sem.Semaphore // one permit: the cash register
	newSignal func() sem.Semaphore
}

// hilzerCustomer is a customer as the barbers see it.
type hilzerCustomer struct {
	id   int
	done sem.Semaphore // its haircut is over, then its payment accepted
}

// NewHilzerShop returns an empty shop with room for holds customers.
func NewHilzerShop(newSemaphore NewSemaphore, holds int) *HilzerShop {
	return &HilzerShop{
		holds:     holds,
		mutex:     newSemaphore(1, 1),
		sofa:      newSemaphore(judge.SofaSeats, judge.SofaSeats),
		chair:     newSemaphore(judge.ShopBarbers, judge.ShopBarbers),
		seated:    newSemaphore(judge.ShopBarbers, 0),
		cash:      newSemaphore(judge.ShopBarbers, 0),
		register:  newSemaphore(1, 1),
		newSignal: func() sem.Semaphore { return newSemaphore(1, 0) },
	}
}

// Customer comes in, or balks if the shop is full; then it takes the
// sofa and a barber chair in its turn, has its haircut, pays, and leaves
// with its receipt.
func (s *HilzerShop) Customer(ctx context.Context, id int, v Visit) (bool, error) {
	me := hilzerCustomer{id: id, done: s.newSignal()}
	sat, seated := s.newSignal(), s.newSignal()

	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return false, err
	}
	if s.inside == s.holds {
		v.Balk()
		s.mutex.Release(1)
		return false, nil
	}
	s.inside++
	v.EnterShop()
	ahead := s.lastIn
	s.lastIn = sat
	s.mutex.Release(1)

	if err := s.inTurn(ctx, ahead, s.sofa); err != nil {
		return false, err
	}
	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return false, err
	}
	v.SitOnSofa()
	ahead = s.lastSat
	s.lastSat = seated
	s.mutex.Release(1)
	sat.Release(1)

	if err := s.inTurn(ctx, ahead, s.chair); err != nil {
		return false, err
	}
	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return false, err
	}
	v.SitInBarberChair()
	s.chairs = append(s.chairs, me)
	s.mutex.Release(1)
	s.sofa.Release(1)
	seated.Release(1)
	s.seated.Release(1)

	if err := me.done.Acquire(ctx, 1); err != nil { // the haircut
		return false, err
	}
	s.chair.Release(1)
	v.Pay()
	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return false, err
	}
	s.paid = append(s.paid, me)
	s.mutex.Release(1)
	s.cash.Release(1)
	if err := me.done.Acquire(ctx, 1); err != nil { // the receipt
		return false, err
	}

	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return false, err
	}
	s.inside--
	v.LeaveShop()
	s.mutex.Release(1)
	return true, nil
}

// inTurn waits until the customer ahead in line (if any) has moved on,
// then for a place of places.
func (s *HilzerShop) inTurn(ctx context.Context, ahead, places sem.Semaphore) error {
	if ahead != nil {
		if err := ahead.Acquire(ctx, 1); err != nil {
			return err
		}
	}
	return places.Acquire(ctx, 1)
}

// Barber sleeps until a customer sits in a chair, cuts its hair, then
// takes a payment at the register, until ctx is done.
func (s *HilzerShop) Barber(ctx context.Context, cutHair, acceptPayment func(customer int)) error {
	for {
		c, err := s.next(ctx, s.seated, &s.chairs)
		if err != nil {
			return err
		}
		cutHair(c.id)
		c.done.Release(1)

		if c, err = s.next(ctx, s.cash, &s.paid); err != nil {
			return err
		}
		if err := s.register.Acquire(ctx, 1); err != nil {
			return err
		}
		acceptPayment(c.id)
		s.register.Release(1)
		c.done.Release(1)
	}
}

// next waits for a customer counted by ready and takes the first of
// queue.
func (s *HilzerShop) next(ctx context.Context, ready sem.Semaphore, queue *[]hilzerCustomer) (hilzerCustomer, error) {
	if err := ready.Acquire(ctx, 1); err != nil {
		return hilzerCustomer{}, err
	}
	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return hilzerCustomer{}, err
	}
	c := (*queue)[0]
	*queue = (*queue)[1:]
	s.mutex.Release(1)
	return c, nil
}
