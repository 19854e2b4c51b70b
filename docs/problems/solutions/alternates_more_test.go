package solutions_test

import (
	"context"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
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

// countedBoat is the river crossing with the boarding counted: the kinds
// wait in queues indexed by kind, and the boat's passengers count
// themselves aboard under a mutex of their own; the fourth to board,
// whoever it is, tells the captain "all aboard" (the captain waits for
// that only if it was not the fourth itself).
type countedBoat struct {
	mutex      sem.Semaphore // the counts of waiters; held by a boat's captain until it rows
	waiting    [2]int        // hackers, serfs
	queue      [2]sem.Semaphore
	boardMutex sem.Semaphore // guards aboard
	aboard     int
	allAboard  sem.Semaphore
}

func newCountedBoat(n check.NewSemaphore) *countedBoat {
	return &countedBoat{
		mutex: n(1, 1), queue: [2]sem.Semaphore{n(4, 0), n(4, 0)},
		boardMutex: n(1, 1), allAboard: n(1, 0),
	}
}

func (b *countedBoat) Hacker(ctx context.Context, board, rowBoat func()) error {
	return b.cross(ctx, 0, board, rowBoat)
}

func (b *countedBoat) Serf(ctx context.Context, board, rowBoat func()) error {
	return b.cross(ctx, 1, board, rowBoat)
}

func (b *countedBoat) cross(ctx context.Context, kind int, board, rowBoat func()) error {
	if err := b.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	other := 1 - kind
	b.waiting[kind]++
	captain := true
	if b.waiting[kind] == 4 {
		b.waiting[kind] -= 4
		b.queue[kind].Release(4)
	} else if b.waiting[kind] >= 2 && b.waiting[other] >= 2 {
		b.waiting[kind] -= 2
		b.waiting[other] -= 2
		b.queue[kind].Release(2)
		b.queue[other].Release(2)
	} else {
		captain = false
		b.mutex.Release(1)
	}
	if err := b.queue[kind].Acquire(ctx, 1); err != nil {
		return err
	}
	board()
	if err := b.boardMutex.Acquire(ctx, 1); err != nil {
		return err
	}
	b.aboard++
	full := b.aboard == 4
	if full {
		b.aboard = 0
	}
	b.boardMutex.Release(1)
	switch {
	case captain && !full:
		if err := b.allAboard.Acquire(ctx, 1); err != nil {
			return err
		}
	case !captain && full:
		b.allAboard.Release(1)
	}
	if captain {
		rowBoat()
		b.mutex.Release(1)
	}
	return nil
}

// mutexSanta is Santa Claus as the Little Book first writes it: Santa
// does his work holding the mutex, so nobody is counted in or out while
// he prepares the sleigh or helps; he looks at the counts, not at who
// woke him, the reindeer first. The elves keep a turnstile (elfTex) that
// the third of a group keeps shut and the last out opens.
type mutexSanta struct {
	mutex                 sem.Semaphore
	reindeer, elves       int
	santaSem, reindeerSem sem.Semaphore
	elfTex, elfSem        sem.Semaphore
}

func newMutexSanta(n check.NewSemaphore) *mutexSanta {
	return &mutexSanta{
		mutex: n(1, 1), santaSem: n(2, 0), reindeerSem: n(judge.Herd, 0),
		elfTex: n(1, 1), elfSem: n(judge.ElfGroup, 0),
	}
}

func (w *mutexSanta) Santa(ctx context.Context, prepareSleigh, helpElves func()) error {
	for {
		if err := w.santaSem.Acquire(ctx, 1); err != nil {
			return err
		}
		if err := w.mutex.Acquire(ctx, 1); err != nil {
			return err
		}
		if w.reindeer == judge.Herd {
			prepareSleigh()
			w.reindeer = 0
			w.reindeerSem.Release(judge.Herd)
		} else if w.elves == judge.ElfGroup {
			helpElves()
			w.elfSem.Release(judge.ElfGroup)
		}
		w.mutex.Release(1)
	}
}

func (w *mutexSanta) Reindeer(ctx context.Context, getHitched func()) error {
	if err := w.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	if w.reindeer++; w.reindeer == judge.Herd {
		w.santaSem.Release(1)
	}
	w.mutex.Release(1)
	if err := w.reindeerSem.Acquire(ctx, 1); err != nil {
		return err
	}
	getHitched()
	return nil
}

func (w *mutexSanta) Elf(ctx context.Context, getHelp func()) error {
	if err := w.elfTex.Acquire(ctx, 1); err != nil {
		return err
	}
	if err := w.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	if w.elves++; w.elves == judge.ElfGroup {
		w.santaSem.Release(1)
	} else {
		w.elfTex.Release(1)
	}
	w.mutex.Release(1)
	if err := w.elfSem.Acquire(ctx, 1); err != nil {
		return err
	}
	getHelp()
	if err := w.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	if w.elves--; w.elves == 0 {
		w.elfTex.Release(1)
	}
	w.mutex.Release(1)
	return nil
}

// handshakeHall is the dining hall with the Little Book's counts, eating
// and readyToLeave, and a handshake in place of passing the baton: whoever
// lets the waiting student go signals it, and keeps the mutex until the
// student says it has left.
type handshakeHall struct {
	mutex                sem.Semaphore
	eating, readyToLeave int
	okToLeave, left      sem.Semaphore
}

func newHandshakeHall(n check.NewSemaphore) *handshakeHall {
	return &handshakeHall{mutex: n(1, 1), okToLeave: n(1, 0), left: n(1, 0)}
}

func (h *handshakeHall) Student(ctx context.Context, sit, dine, leave func()) error {
	if err := h.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	h.eating++
	sit()
	if h.eating == 2 && h.readyToLeave == 1 {
		if err := h.letGo(ctx, 1); err != nil {
			return err
		}
	}
	h.mutex.Release(1)
	dine()
	if err := h.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	h.eating--
	h.readyToLeave++
	switch {
	case h.eating == 1 && h.readyToLeave == 1:
		h.mutex.Release(1)
		if err := h.okToLeave.Acquire(ctx, 1); err != nil {
			return err
		}
		leave()
		h.left.Release(1)
		return nil
	case h.eating == 0 && h.readyToLeave == 2:
		if err := h.letGo(ctx, 2); err != nil {
			return err
		}
	default:
		h.readyToLeave--
	}
	leave()
	h.mutex.Release(1)
	return nil
}

// letGo, called holding the mutex, lets the waiting student leave and
// waits until it has; ready is how many that makes no longer ready to
// leave (the waiter, and the caller if it leaves too).
func (h *handshakeHall) letGo(ctx context.Context, ready int) error {
	h.readyToLeave -= ready
	h.okToLeave.Release(1)
	return h.left.Acquire(ctx, 1)
}

// weightedCars is the multi-car roller coaster with no counts: a car
// waits for its passengers, and for them to get off, with one weighted
// Acquire of as many permits as it has seats, each passenger giving one.
type weightedCars struct {
	seats                int64
	loading              int // the car that loads: written before boardQueue's permits
	loadTurn, unloadTurn []sem.Semaphore
	unboardQueue         []sem.Semaphore
	boardQueue           sem.Semaphore
	boarded, ashore      sem.Semaphore
}

func newWeightedCars(n check.NewSemaphore, cars, seats int) *weightedCars {
	s := int64(seats)
	c := &weightedCars{seats: s, boardQueue: n(s, 0), boarded: n(s, 0), ashore: n(s, 0)}
	for i := range cars {
		turn := int64(0)
		if i == 0 {
			turn = 1
		}
		c.loadTurn = append(c.loadTurn, n(1, turn))
		c.unloadTurn = append(c.unloadTurn, n(1, turn))
		c.unboardQueue = append(c.unboardQueue, n(s, 0))
	}
	return c
}

func (c *weightedCars) Car(ctx context.Context, car int, load, run, unload func()) error {
	next := (car + 1) % len(c.loadTurn)
	for {
		if err := c.loadTurn[car].Acquire(ctx, 1); err != nil {
			return err
		}
		load()
		c.loading = car
		c.boardQueue.Release(c.seats)
		if err := c.boarded.Acquire(ctx, c.seats); err != nil {
			return err
		}
		c.loadTurn[next].Release(1)
		run()
		if err := c.unloadTurn[car].Acquire(ctx, 1); err != nil {
			return err
		}
		unload()
		c.unboardQueue[car].Release(c.seats)
		if err := c.ashore.Acquire(ctx, c.seats); err != nil {
			return err
		}
		c.unloadTurn[next].Release(1)
	}
}

func (c *weightedCars) Passenger(ctx context.Context, board, unboard func()) error {
	if err := c.boardQueue.Acquire(ctx, 1); err != nil {
		return err
	}
	board()
	car := c.loading
	c.boarded.Release(1)
	if err := c.unboardQueue[car].Acquire(ctx, 1); err != nil {
		return err
	}
	unboard()
	c.ashore.Release(1)
	return nil
}
