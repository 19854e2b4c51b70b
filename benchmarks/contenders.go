// Package benchmarks races semacat's strategies head to head against the
// ecosystem's references: golang.org/x/sync/semaphore.Weighted, a raw
// buffered channel, and sync.Mutex where the size is 1.
//
// Every contender is driven through the sem.Semaphore interface, so each pays
// the same dynamic dispatch and ratios between them measure the mechanisms,
// not the calling convention. The references are wrapped as thinly as
// possible: the raw channel's Acquire is a bare send and its Release a bare
// receive, exactly what a user writes by hand, with no context support.
//
// A contended scenario is measured in its steady state, after a warm-up
// whose rule is in steady.go, for the -benchtime.
//
// To race your own semaphore against the catalog, call Race from a
// benchmark of your own (see the example), run it with go test -bench and
// compare the contenders with benchstat -col /impl. The semabench command
// runs the whole race and writes a report with charts:
//
//	go run github.com/semacat/sem/benchmarks/semabench@latest -out results
package benchmarks

import (
	"context"
	"fmt"
	"sync"

	"golang.org/x/sync/semaphore"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/condsem"
	"github.com/semacat/sem/spinsem"
	"github.com/semacat/sem/weighted"
)

// Contender is one semaphore implementation in the race.
type Contender struct {
	// Name identifies the contender in benchmark names (impl=Name).
	Name string
	// New builds a semaphore with size permits.
	New func(size int64) sem.Semaphore
	// MaxSize is the largest size it supports; 0 means any.
	MaxSize int64
	// UnitOnly is set when it only supports requests of one permit.
	UnitOnly bool
	// Reference is set for the ecosystem's implementations semacat is
	// measured against.
	Reference bool
	// IgnoresContext is set when Acquire never returns early on a done
	// context, so scenarios that cancel waiters cannot run.
	IgnoresContext bool
}

// Skip reports why c cannot run sc, or "" when it can.
func (c Contender) Skip(sc Scenario) string {
	switch {
	case c.MaxSize != 0 && sc.Size > c.MaxSize:
		return fmt.Sprintf("size %d exceeds its maximum of %d", sc.Size, c.MaxSize)
	case c.UnitOnly && sc.MaxWeight > 1:
		return "takes only one permit per request"
	case c.IgnoresContext && sc.Kind == Cancel:
		return "Acquire ignores its context"
	}
	return ""
}

// Catalog returns every implementation in the race, semacat's strategies
// first, then the references. Each call returns a new slice, which the
// caller may change.
func Catalog() []Contender {
	return []Contender{
		{Name: "chansem", New: func(size int64) sem.Semaphore { return chansem.New(size) }},
		{Name: "condsem", New: func(size int64) sem.Semaphore { return condsem.New(size) }},
		{Name: "condsem-fair", New: func(size int64) sem.Semaphore { return condsem.NewFair(size) }},
		{Name: "spinsem", New: func(size int64) sem.Semaphore { return spinsem.New(size) }},
		{Name: "weighted", New: func(size int64) sem.Semaphore { return weighted.New(size) }},
		{Name: "xsync", New: func(size int64) sem.Semaphore { return semaphore.NewWeighted(size) }, Reference: true},
		{Name: "chan", New: func(size int64) sem.Semaphore { return make(rawChan, size) }, UnitOnly: true, Reference: true, IgnoresContext: true},
		{Name: "mutex", New: func(int64) sem.Semaphore { return new(mutex) }, MaxSize: 1, UnitOnly: true, Reference: true, IgnoresContext: true},
	}
}

// rawChan is the hand-written channel semaphore: a send to acquire, a
// receive to release. It ignores ctx and supports only n == 1.
type rawChan chan struct{}

func (c rawChan) Acquire(_ context.Context, _ int64) error { c <- struct{}{}; return nil }
func (c rawChan) TryAcquire(int64) bool {
	select {
	case c <- struct{}{}:
		return true
	default:
		return false
	}
}
func (c rawChan) Release(int64) { <-c }

// mutex is sync.Mutex seen as a semaphore of size 1.
type mutex struct{ mu sync.Mutex }

func (m *mutex) Acquire(context.Context, int64) error { m.mu.Lock(); return nil }
func (m *mutex) TryAcquire(int64) bool                { return m.mu.TryLock() }
func (m *mutex) Release(int64)                        { m.mu.Unlock() }
