package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// NoStarveMutex is a mutex under which no goroutine starves, even when
// it is built on weak semaphores: ones that wake some waiter on Release,
// but not necessarily the one that waited longest. This is Morris's
// algorithm.
//
// Goroutines gather in a first waiting room. When the room's door (gate1)
// lets the last of them through to the second room, the door stays shut
// behind them, and they enter the critical section from the second room
// one by one (gate2). Only when the second room is empty does the door of
// the first room open again. A newcomer can join only a batch that has not
// yet moved on, so nobody waits for more than two batches.
type NoStarveMutex struct {
	mutex sem.Semaphore // one permit: guards room1
	room1 int           // goroutines in the first room
	room2 int           // goroutines in the second room; guarded by gate1 or gate2
	gate1 sem.Semaphore // into the second room
	gate2 sem.Semaphore // into the critical section
}

// NewNoStarveMutex returns an unlocked mutex.
func NewNoStarveMutex(newSemaphore NewSemaphore) *NoStarveMutex {
	return &NoStarveMutex{mutex: newSemaphore(1, 1), gate1: newSemaphore(1, 1), gate2: newSemaphore(1, 0)}
}

// Do waits its turn, runs critical, and lets the next one in.
func (m *NoStarveMutex) Do(ctx context.Context, critical func()) error {
	if err := m.enterRoom1(ctx); err != nil {
		return err
	}
	if err := m.enterRoom2(ctx); err != nil {
		return err
	}
	if err := m.gate2.Acquire(ctx, 1); err != nil {
		return err
	}
	m.room2--
	critical()
	if m.room2 == 0 {
		m.gate1.Release(1) // the batch is through: open the first room's door
	} else {
		m.gate2.Release(1) // the next of the batch
	}
	return nil
}

func (m *NoStarveMutex) enterRoom1(ctx context.Context) error {
	if err := m.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	m.room1++
	m.mutex.Release(1)
	return nil
}

// enterRoom2 passes gate1; the last of the first room shuts it behind
// itself and opens gate2, the others pass gate1 on.
func (m *NoStarveMutex) enterRoom2(ctx context.Context) error {
	if err := m.gate1.Acquire(ctx, 1); err != nil {
		return err
	}
	m.room2++
	if err := m.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	m.room1--
	last := m.room1 == 0
	m.mutex.Release(1)
	if last {
		m.gate2.Release(1)
	} else {
		m.gate1.Release(1)
	}
	return nil
}
