package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// DiningHall is the dining hall: students dine and leave, but nobody
// leaves another student dining alone.
//
// The mutex guards two counts: the students dining, and the one (there is
// never more) who has finished but waits to leave because a single other
// student still dines. Students sit down and leave while they hold the
// mutex, so that what the counts say is what the table is. The waiter is
// let go by whoever makes its leaving harmless, a student who sits down
// (then two dine) or the last diner (who leaves too), and that student
// hands it the mutex: the waiter leaves before anyone else can sit down.
type DiningHall struct {
	mutex     sem.Semaphore // one permit: guards dining and waiting
	dining    int
	waiting   int
	okToLeave sem.Semaphore // wakes the waiter, handing it the mutex
}

// NewDiningHall returns an empty hall.
func NewDiningHall(newSemaphore NewSemaphore) *DiningHall {
	return &DiningHall{mutex: newSemaphore(1, 1), okToLeave: newSemaphore(1, 0)}
}

// Student sits down, dines, and leaves once nobody would dine alone.
func (h *DiningHall) Student(ctx context.Context, sit, dine, leave func()) error {
	if err := h.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	h.dining++
	sit()
	h.letWaiterGo(h.dining == 2)
	dine()
	if err := h.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	h.dining--
	if h.dining == 1 && h.waiting == 0 { // leaving would leave the last diner alone
		h.waiting++
		h.mutex.Release(1)
		if err := h.okToLeave.Acquire(ctx, 1); err != nil { // wakes holding the mutex
			return err
		}
	}
	leave()
	h.letWaiterGo(h.dining == 0)
	return nil
}

// letWaiterGo hands the mutex to the waiter if there is one and ok says
// it may go, or gives the mutex back.
func (h *DiningHall) letWaiterGo(ok bool) {
	if ok && h.waiting == 1 {
		h.waiting--
		h.okToLeave.Release(1)
		return
	}
	h.mutex.Release(1)
}
