package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// Barbershop has one barber, one barber's chair and a few waiting chairs.
// A customer who finds every chair taken leaves; the barber sleeps until a
// customer comes; barber and customer each wait for the other, so that a
// haircut has exactly one barber and one customer, and both are done when
// it ends.
type Barbershop struct {
	room         int           // customers the shop holds: the waiting chairs and the barber's
	mutex        sem.Semaphore // one permit: guards inside
	inside       int
	customer     sem.Semaphore // a customer is ready for a haircut
	barber       sem.Semaphore // the barber is ready for a customer
	customerDone sem.Semaphore
	// barberDone may hold a signal for every customer in the shop: the
	// barber can finish the next haircut before the last customer has
	// taken its "done".
	barberDone sem.Semaphore
}

// NewBarbershop returns an empty shop with chairs waiting chairs.
func NewBarbershop(newSemaphore NewSemaphore, chairs int) *Barbershop {
	return &Barbershop{
		room:         chairs + 1,
		mutex:        newSemaphore(1, 1),
		customer:     newSemaphore(int64(chairs+1), 0),
		barber:       newSemaphore(1, 0),
		customerDone: newSemaphore(1, 0),
		barberDone:   newSemaphore(int64(chairs+1), 0),
	}
}

// Customer comes in, waits for the barber and calls getHairCut, unless the
// shop is full: then it reports false at once.
func (s *Barbershop) Customer(ctx context.Context, getHairCut func()) (served bool, err error) {
	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return false, err
	}
	if s.inside == s.room {
		s.mutex.Release(1)
		return false, nil
	}
	s.inside++
	s.mutex.Release(1)

	s.customer.Release(1)
	if err := s.barber.Acquire(ctx, 1); err != nil {
		return false, err
	}
	getHairCut()
	s.customerDone.Release(1)
	if err := s.barberDone.Acquire(ctx, 1); err != nil {
		return false, err
	}

	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return false, err
	}
	s.inside--
	s.mutex.Release(1)
	return true, nil
}

// Barber cuts hair, one customer after another, sleeping while there is
// none, until ctx is done.
func (s *Barbershop) Barber(ctx context.Context, cutHair func()) error {
	for {
		if err := s.customer.Acquire(ctx, 1); err != nil {
			return err
		}
		s.barber.Release(1)
		cutHair()
		if err := s.customerDone.Acquire(ctx, 1); err != nil {
			return err
		}
		s.barberDone.Release(1)
	}
}
