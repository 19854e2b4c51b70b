package solutions_test

import (
	"context"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
)

// batonShop is Hilzer's barbershop by passing the baton: one mutex guards
// all the counts and both lines, a customer who may not go on queues its
// own semaphore and waits on it, and whoever frees a place on the sofa or
// in a chair hands it, with the mutex still held, to the head of the line
// for it; the woken customer takes its step and only then gives the mutex
// back, so the steps happen in the lines' order. The barbers take payments
// holding the mutex: it is the one cash register too.
type batonShop struct {
	mutex                sem.Semaphore
	holds, inside        int
	sofaFree, chairsFree int
	standing, onSofa     []*batonCustomer
	inChairs, paid       []*batonCustomer
	seated, cash         sem.Semaphore
	newSignal            func() sem.Semaphore
}

// batonCustomer is a customer and the one semaphore it ever waits on.
type batonCustomer struct {
	id   int
	wake sem.Semaphore
}

func newBatonShop(n check.NewSemaphore, holds int) *batonShop {
	return &batonShop{
		mutex: n(1, 1), holds: holds,
		sofaFree: judge.SofaSeats, chairsFree: judge.ShopBarbers,
		seated: n(judge.ShopBarbers, 0), cash: n(int64(holds), 0),
		newSignal: func() sem.Semaphore { return n(1, 0) },
	}
}

func (s *batonShop) Customer(ctx context.Context, id int, v judge.Visit) (bool, error) {
	me := &batonCustomer{id: id, wake: s.newSignal()}
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
	if err := s.take(ctx, me, &s.sofaFree, &s.standing); err != nil {
		return false, err
	}
	v.SitOnSofa()
	if err := s.take(ctx, me, &s.chairsFree, &s.onSofa); err != nil {
		return false, err
	}
	v.SitInBarberChair()
	s.inChairs = append(s.inChairs, me)
	s.seated.Release(1)
	s.free(&s.sofaFree, &s.standing) // hands the mutex on, or gives it back

	if err := me.wake.Acquire(ctx, 1); err != nil { // the haircut
		return false, err
	}
	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return false, err
	}
	s.free(&s.chairsFree, &s.onSofa)
	v.Pay()
	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return false, err
	}
	s.paid = append(s.paid, me)
	s.mutex.Release(1)
	s.cash.Release(1)
	if err := me.wake.Acquire(ctx, 1); err != nil { // the receipt
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

// take, called holding the mutex, takes one of free places, or joins line
// and waits for a customer who frees one to hand it over with the mutex.
func (s *batonShop) take(ctx context.Context, me *batonCustomer, free *int, line *[]*batonCustomer) error {
	if *free > 0 && len(*line) == 0 {
		*free--
		return nil
	}
	*line = append(*line, me)
	s.mutex.Release(1)
	return me.wake.Acquire(ctx, 1)
}

// free, called holding the mutex, hands a freed place and the mutex to the
// head of line, or counts the place free and releases the mutex.
func (s *batonShop) free(free *int, line *[]*batonCustomer) {
	if len(*line) == 0 {
		*free++
		s.mutex.Release(1)
		return
	}
	next := (*line)[0]
	*line = (*line)[1:]
	next.wake.Release(1)
}

func (s *batonShop) Barber(ctx context.Context, cutHair, acceptPayment func(customer int)) error {
	for {
		if err := s.seated.Acquire(ctx, 1); err != nil {
			return err
		}
		if err := s.mutex.Acquire(ctx, 1); err != nil {
			return err
		}
		c := s.inChairs[0]
		s.inChairs = s.inChairs[1:]
		s.mutex.Release(1)
		cutHair(c.id)
		c.wake.Release(1)

		if err := s.cash.Acquire(ctx, 1); err != nil {
			return err
		}
		if err := s.mutex.Acquire(ctx, 1); err != nil {
			return err
		}
		c = s.paid[0]
		s.paid = s.paid[1:]
		acceptPayment(c.id)
		s.mutex.Release(1)
		c.wake.Release(1)
	}
}
