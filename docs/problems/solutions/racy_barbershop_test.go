package solutions_test

import (
	"context"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
)

// racyBarbershop is the barbershop (problem 15) right in every step but
// one: a customer leaving counts itself out with no mutex (s.n--). Every
// seeded run passes; only the race detector sees it, in a free run.

type racyBarbershop struct {
	newSem           check.NewSemaphore
	chairs           int
	m, waiting, done sem.Semaphore
	n                int
	q                []sem.Semaphore
}

func newRacyBarbershop(n check.NewSemaphore, chairs int) *racyBarbershop {
	return &racyBarbershop{newSem: n, chairs: chairs, m: n(1, 1), waiting: n(int64(chairs+1), 0), done: n(1, 0)}
}

func (s *racyBarbershop) Customer(ctx context.Context, getHairCut func()) (bool, error) {
	me := s.newSem(1, 0)
	if err := s.m.Acquire(ctx, 1); err != nil {
		return false, err
	}
	if s.n == s.chairs+1 {
		s.m.Release(1)
		return false, nil
	}
	s.n++
	s.q = append(s.q, me)
	s.m.Release(1)
	s.waiting.Release(1)
	if err := me.Acquire(ctx, 1); err != nil { // the barber is ready for me
		return false, err
	}
	getHairCut()
	s.done.Release(1)
	if err := me.Acquire(ctx, 1); err != nil { // the barber is done too
		return false, err
	}
	s.n-- // no mutex
	return true, nil
}

func (s *racyBarbershop) Barber(ctx context.Context, cutHair func()) error {
	for {
		if err := s.waiting.Acquire(ctx, 1); err != nil {
			return err
		}
		if err := s.m.Acquire(ctx, 1); err != nil {
			return err
		}
		c := s.q[0]
		s.q = s.q[1:]
		s.m.Release(1)
		c.Release(1)
		cutHair()
		if err := s.done.Acquire(ctx, 1); err != nil {
			return err
		}
		c.Release(1)
	}
}
