package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// Lightswitch lets goroutines of one kind share a room that others must
// have alone: the first of them in locks the room, the last out unlocks
// it, and those in between come and go freely.
type Lightswitch struct {
	mutex  sem.Semaphore // one permit: guards inside, and the test with the lock
	inside int
}

// NewLightswitch returns a lightswitch with nobody inside.
func NewLightswitch(newSemaphore NewSemaphore) *Lightswitch {
	return &Lightswitch{mutex: newSemaphore(1, 1)}
}

// Lock enters; the first in waits for room, a semaphore of one permit,
// and takes it for everyone.
func (l *Lightswitch) Lock(ctx context.Context, room sem.Semaphore) error {
	if err := l.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	defer l.mutex.Release(1)
	if l.inside == 0 {
		if err := room.Acquire(ctx, 1); err != nil {
			return err
		}
	}
	l.inside++
	return nil
}

// Unlock leaves; the last out gives room back.
func (l *Lightswitch) Unlock(ctx context.Context, room sem.Semaphore) error {
	if err := l.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	defer l.mutex.Release(1)
	l.inside--
	if l.inside == 0 {
		room.Release(1)
	}
	return nil
}
