package solutions_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// unguardedSwitch counts with an atomic counter instead of a mutex: the
// count is right, but "I am first" and "I lock the room" are two steps.
type unguardedSwitch struct{ inside atomic.Int64 }

func (s *unguardedSwitch) Lock(ctx context.Context, room sem.Semaphore) error {
	if s.inside.Add(1) == 1 {
		return room.Acquire(ctx, 1)
	}
	return nil
}

func (s *unguardedSwitch) Unlock(_ context.Context, room sem.Semaphore) error {
	if s.inside.Add(-1) == 0 {
		room.Release(1)
	}
	return nil
}

// noSwitch makes every reader take the room itself.
type noSwitch struct{}

func (noSwitch) Lock(ctx context.Context, room sem.Semaphore) error { return room.Acquire(ctx, 1) }

func (noSwitch) Unlock(_ context.Context, room sem.Semaphore) error {
	room.Release(1)
	return nil
}

func TestLightswitch(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.Lightswitch
	judgeAll(t, judge.Problem8,
		official(func(n check.NewSemaphore) judge.Lightswitch { return solutions.NewLightswitch(n) }, check.Right[solution]{Name: "LateUnlock", Solution: func(n check.NewSemaphore) judge.Lightswitch { return &lateUnlock{mutex: n(1, 1)} }}),
		check.Wrong[solution]{
			Name:     "NoMutex",
			Solution: func(check.NewSemaphore) judge.Lightswitch { return &unguardedSwitch{} },
			Want:     "reader 2: read 0 while [writer 1] wrote",
		})
}

func TestReadersWriters(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.ReadersWriters
	judgeAll(t, judge.Problem10,
		official(func(n check.NewSemaphore) judge.ReadersWriters { return solutions.NewReadersWriters(n) }, check.Right[solution]{Name: "Turnstile", Solution: newTurnstileRoom}),
		check.Wrong[solution]{
			Name:     "ReadersOneAtATime",
			Solution: judge.WithSwitch(func(check.NewSemaphore) judge.Lightswitch { return noSwitch{} }),
			Want:     "readers never read together",
		})
}

func TestWriterPriority(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.ReadersWriters
	judgeAll(t, judge.Problem11,
		official(func(n check.NewSemaphore) judge.ReadersWriters { return solutions.NewWriterPriority(n) }, check.Right[solution]{Name: "PassTheBaton", Solution: newBatonRoom}),
		check.Wrong[solution]{
			Name:     "NoPriority",
			Solution: func(n check.NewSemaphore) judge.ReadersWriters { return solutions.NewReadersWriters(n) },
			Want:     "reader 5: read 0, although it came while writers wrote or waited",
		},
		check.Wrong[solution]{
			Name:     "Turnstile",
			Solution: newTurnstileRoom,
			Want:     "although it came while writers wrote or waited",
		})
}

// turnstileRoom is the no-starve readers-writers: a turnstile that every
// reader passes and a writer holds while it waits for the room, so that a
// writer waits only for the readers already inside. It does not give
// writers priority: a reader queued at the turnstile before a second
// writer goes in before it.
type turnstileRoom struct {
	turnstile, room sem.Semaphore
	readers         *solutions.Lightswitch
}

func newTurnstileRoom(n check.NewSemaphore) judge.ReadersWriters {
	return &turnstileRoom{turnstile: n(1, 1), room: n(1, 1), readers: solutions.NewLightswitch(n)}
}

func (t *turnstileRoom) ReadLock(ctx context.Context) error {
	if err := t.turnstile.Acquire(ctx, 1); err != nil {
		return err
	}
	t.turnstile.Release(1)
	return t.readers.Lock(ctx, t.room)
}

func (t *turnstileRoom) ReadUnlock(ctx context.Context) error { return t.readers.Unlock(ctx, t.room) }

func (t *turnstileRoom) WriteLock(ctx context.Context) error {
	if err := t.turnstile.Acquire(ctx, 1); err != nil {
		return err
	}
	if err := t.room.Acquire(ctx, 1); err != nil {
		return err
	}
	t.turnstile.Release(1)
	return nil
}

func (t *turnstileRoom) WriteUnlock(context.Context) error {
	t.room.Release(1)
	return nil
}
