package spinsem_test

import (
	"context"
	"sync"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/acquiretest"
	"github.com/semacat/sem/spinsem"
)

// BenchmarkUncontended is the fast paths of Acquire and Release, which
// look at the context between the load of the state and the CAS that
// takes the permits.
func BenchmarkUncontended(b *testing.B) {
	acquiretest.BenchUncontended(b, func(size int64) sem.Semaphore { return spinsem.New(size) })
}

// BenchmarkFloor sets spinsem's uncontended cycle beside the least a
// semaphore of size 1 can do through the interface: sync.Mutex, which
// ignores the context, and sync.Mutex that looks at the context as the
// contract requires of every Acquire. The second is the floor of the fast
// path; spinsem adds to it a weight and the over-release check.
func BenchmarkFloor(b *testing.B) {
	contenders := []struct {
		name string
		new  func() sem.Semaphore
	}{
		{"mutex", func() sem.Semaphore { return new(mutexSem) }},
		{"mutex+ctx", func() sem.Semaphore { return new(ctxMutexSem) }},
		{"spinsem", func() sem.Semaphore { return spinsem.New(1) }},
	}
	for _, c := range contenders {
		b.Run("impl="+c.name, func(b *testing.B) {
			acquiretest.BenchUncontended(b, func(int64) sem.Semaphore { return c.new() })
		})
	}
}

// mutexSem is sync.Mutex as a semaphore of size 1 that ignores the context.
type mutexSem struct{ mu sync.Mutex }

func (m *mutexSem) Acquire(context.Context, int64) error { m.mu.Lock(); return nil }
func (m *mutexSem) TryAcquire(int64) bool                { return m.mu.TryLock() }
func (m *mutexSem) Release(int64)                        { m.mu.Unlock() }

// ctxMutexSem is mutexSem whose Acquire fails once the context is done.
type ctxMutexSem struct{ mutexSem }

func (m *ctxMutexSem) Acquire(ctx context.Context, _ int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	return nil
}
