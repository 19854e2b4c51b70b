package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// noWaitForBarber: a customer says it is ready and sits straight down
// for its haircut, without waiting for the barber to be ready too.
type noWaitForBarber struct {
	mutex, customer sem.Semaphore
	inside, room    int
}

func (s *noWaitForBarber) Customer(ctx context.Context, getHairCut func()) (bool, error) {
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
	getHairCut()
	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return false, err
	}
	s.inside--
	s.mutex.Release(1)
	return true, nil
}

func (s *noWaitForBarber) Barber(ctx context.Context, cutHair func()) error {
	for {
		if err := s.customer.Acquire(ctx, 1); err != nil {
			return err
		}
		cutHair()
	}
}

func TestBarbershop(t *testing.T) {
	type solution = func(check.NewSemaphore, int) judge.Barbershop
	judgeAll(t, judge.Problem15,
		official(func(n check.NewSemaphore, chairs int) judge.Barbershop { return solutions.NewBarbershop(n, chairs) },
			check.Right[solution]{
				Name:     "FirstComeFirstServed",
				Solution: func(n check.NewSemaphore, chairs int) judge.Barbershop { return newFIFOBarbershop(n, chairs) },
			}),
		check.Wrong[solution]{
			Name: "NoWaitForBarber",
			Solution: func(n check.NewSemaphore, chairs int) judge.Barbershop {
				return &noWaitForBarber{mutex: n(1, 1), customer: n(int64(chairs+1), 0), room: chairs + 1}
			},
			Want: "more than 1 at once",
		},
		check.Wrong[solution]{
			Name: "BarberChairNotCounted",
			Solution: func(n check.NewSemaphore, chairs int) judge.Barbershop {
				return solutions.NewBarbershop(n, chairs-1)
			},
			Want: "in the shop of 3 chairs",
		},
		check.Wrong[solution]{
			Name: "NeverFull",
			Solution: func(n check.NewSemaphore, chairs int) judge.Barbershop {
				return solutions.NewBarbershop(n, 100*chairs)
			},
			Want: "customers wait, on 3 chairs",
		},
		check.Wrong[solution]{
			Name: "BarberDoneOfOne",
			Solution: func(n check.NewSemaphore, chairs int) judge.Barbershop {
				return solutions.NewBarbershop(barberDoneOfOne(n), chairs)
			},
			Want: "barber: panic: ",
		})
}

// barberDoneOfOne builds the barbershop's last semaphore, barberDone, with
// room for one pending signal instead of one per customer in the shop:
// when a customer is slow to take the barber's "done", the barber can
// finish the next haircut and signal again.
func barberDoneOfOne(n check.NewSemaphore) check.NewSemaphore {
	made := 0
	return func(size, available int64) sem.Semaphore {
		if made++; made == 5 {
			size = 1
		}
		return n(size, available)
	}
}
