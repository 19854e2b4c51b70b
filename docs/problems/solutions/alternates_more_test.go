package solutions_test

import (
	"context"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
)

// More right answers written differently from the book's, for the
// problems whose official answer was the only right one.

// queueLock is a no-starve mutex as a queue of the waiters' own
// semaphores: a goroutine that finds the lock taken queues a semaphore of
// its own and waits on it, and the one leaving hands the lock straight to
// the oldest in the queue. Only the short critical sections of mutex are
// open to overtaking on weak semaphores.
type queueLock struct {
	mutex     sem.Semaphore // guards busy and queue
	busy      bool
	queue     []sem.Semaphore
	newSignal func() sem.Semaphore
}

func newQueueLock(n check.NewSemaphore) *queueLock {
	return &queueLock{mutex: n(1, 1), newSignal: func() sem.Semaphore { return n(1, 0) }}
}

func (l *queueLock) Do(ctx context.Context, critical func()) error {
	if err := l.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	if !l.busy {
		l.busy = true
		l.mutex.Release(1)
	} else {
		mine := l.newSignal()
		l.queue = append(l.queue, mine)
		l.mutex.Release(1)
		if err := mine.Acquire(ctx, 1); err != nil { // the lock, handed over
			return err
		}
	}
	critical()
	if err := l.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	if len(l.queue) == 0 {
		l.busy = false
	} else {
		next := l.queue[0]
		l.queue = l.queue[1:]
		next.Release(1)
	}
	l.mutex.Release(1)
	return nil
}

// fifoBarbershop is the barbershop served in order of arrival: each
// customer queues a semaphore of its own, and the barber calls the oldest
// by it, then tells it on the same semaphore that its haircut is over.
type fifoBarbershop struct {
	mutex        sem.Semaphore // guards inside and queue
	room, inside int
	queue        []sem.Semaphore
	customer     sem.Semaphore // customers waiting for the barber
	customerDone sem.Semaphore
	newSignal    func() sem.Semaphore
}

func newFIFOBarbershop(n check.NewSemaphore, chairs int) *fifoBarbershop {
	return &fifoBarbershop{
		mutex: n(1, 1), room: chairs + 1,
		customer: n(int64(chairs+1), 0), customerDone: n(1, 0),
		newSignal: func() sem.Semaphore { return n(1, 0) },
	}
}

func (s *fifoBarbershop) Customer(ctx context.Context, getHairCut func()) (bool, error) {
	mine := s.newSignal()
	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return false, err
	}
	if s.inside == s.room {
		s.mutex.Release(1)
		return false, nil
	}
	s.inside++
	s.queue = append(s.queue, mine)
	s.mutex.Release(1)
	s.customer.Release(1)
	if err := mine.Acquire(ctx, 1); err != nil { // called to the chair
		return false, err
	}
	getHairCut()
	s.customerDone.Release(1)
	if err := mine.Acquire(ctx, 1); err != nil { // the barber is done
		return false, err
	}
	if err := s.mutex.Acquire(ctx, 1); err != nil {
		return false, err
	}
	s.inside--
	s.mutex.Release(1)
	return true, nil
}

func (s *fifoBarbershop) Barber(ctx context.Context, cutHair func()) error {
	for {
		if err := s.customer.Acquire(ctx, 1); err != nil {
			return err
		}
		if err := s.mutex.Acquire(ctx, 1); err != nil {
			return err
		}
		next := s.queue[0]
		s.queue = s.queue[1:]
		s.mutex.Release(1)
		next.Release(1)
		cutHair()
		if err := s.customerDone.Acquire(ctx, 1); err != nil {
			return err
		}
		next.Release(1)
	}
}
