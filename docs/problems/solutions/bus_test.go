package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// openStop is the bus stop whose bus counts its riders and gives the
// mutex back before they board, one at a time; or does not wait for them
// at all.
type openStop struct {
	mutex, bus, boarded sem.Semaphore
	waiting             int
	waitForBoarding     bool
}

func (s *openStop) Rider(ctx context.Context, board func()) error {
	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	s.waiting++
	s.mutex.Release(1)
	if err := s.bus.Acquire(ctx, 1); err != nil {
		return err
	}
	board()
	s.boarded.Release(1)
	return nil
}

func (s *openStop) Bus(ctx context.Context, depart func()) error {
	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	n := min(s.waiting, judge.BusCapacity)
	s.waiting -= n
	s.mutex.Release(1)
	if !s.waitForBoarding {
		s.bus.Release(int64(n))
		depart()
		return nil
	}
	for range n {
		s.bus.Release(1)
		if err := s.boarded.Acquire(ctx, 1); err != nil {
			return err
		}
	}
	depart()
	return nil
}

func TestSenateBus(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.BusStop
	newOpen := func(wait bool) solution {
		return func(n check.NewSemaphore) judge.BusStop {
			return &openStop{mutex: n(1, 1), bus: n(16, 0), boarded: n(16, 0), waitForBoarding: wait}
		}
	}
	judgeAll(t, judge.Problem24,
		official(func(n check.NewSemaphore) judge.BusStop { return solutions.NewBusStop(n, judge.BusCapacity) },
			check.Right[solution]{Name: "AllAtOnce", Solution: func(n check.NewSemaphore) judge.BusStop {
				return &allAtOnce{mutex: n(1, 1), bus: n(judge.BusCapacity, 0), boarded: n(judge.BusCapacity, 0)}
			}}),
		check.Wrong[solution]{
			Name:     "BoardingOpenToLateRiders",
			Solution: newOpen(true),
			Want:     "before the rider",
		},
		check.Wrong[solution]{
			Name:     "LeavesAtOnce",
			Solution: newOpen(false),
			Want:     "rider",
		},
		check.Wrong[solution]{
			Name: "ReleasesEverySeat",
			Solution: func(n check.NewSemaphore) judge.BusStop {
				return &everySeat{mutex: n(1, 1), bus: n(16, 0), boarded: n(16, 0)}
			},
			Want: "with no bus at the stop",
		})
}

// everySeat is the bus stop whose bus lets on BusCapacity riders however
// few wait: it waits for those it counted, and leaves the spare permits to
// whoever comes next, bus or no bus.
type everySeat struct {
	mutex, bus, boarded sem.Semaphore
	waiting             int
}

func (s *everySeat) Rider(ctx context.Context, board func()) error {
	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	s.waiting++
	s.mutex.Release(1)
	if err := s.bus.Acquire(ctx, 1); err != nil {
		return err
	}
	board()
	s.boarded.Release(1)
	return nil
}

func (s *everySeat) Bus(ctx context.Context, depart func()) error {
	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	defer depart()
	defer s.mutex.Release(1)
	n := int64(min(s.waiting, judge.BusCapacity))
	s.bus.Release(judge.BusCapacity)
	s.waiting -= int(n)
	return s.boarded.Acquire(ctx, n)
}

// allAtOnce is the bus stop whose bus, holding the mutex, lets its share
// of the riders on all at once and waits for them with one weighted
// Acquire.
type allAtOnce struct {
	mutex, bus, boarded sem.Semaphore
	waiting             int
}

func (s *allAtOnce) Rider(ctx context.Context, board func()) error {
	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	s.waiting++
	s.mutex.Release(1)
	if err := s.bus.Acquire(ctx, 1); err != nil {
		return err
	}
	board()
	s.boarded.Release(1)
	return nil
}

func (s *allAtOnce) Bus(ctx context.Context, depart func()) error {
	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	defer depart()
	defer s.mutex.Release(1)
	n := int64(min(s.waiting, judge.BusCapacity))
	if n == 0 {
		return nil
	}
	s.bus.Release(n)
	s.waiting -= int(n)
	return s.boarded.Acquire(ctx, n)
}
