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
// compare the contenders with benchstat:
//
//	go test -run '^$' -bench Race -count 6 >race.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /impl race.txt
//
// The references race first, so x/sync is benchstat's first column, the
// base of every ratio; -col '/impl@(xsync tokens)' keeps only the
// contenders named, in that order. The semabench command runs the whole
// race and writes a report with charts, and reads Race's output too:
//
//	go run github.com/semacat/sem/benchmarks/semabench@latest -out results
//	go run github.com/semacat/sem/benchmarks/semabench@latest -from race.txt -out results
package benchmarks

import (
	"context"
	"fmt"
	"regexp"
	"strings"
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

// Catalog returns every implementation in the race: the references first,
// x/sync's Weighted leading (benchstat -col /impl takes the first column
// it meets as the base of every ratio), then semacat's strategies. Each
// call returns a new slice, which the caller may change.
func Catalog() []Contender {
	return []Contender{
		{Name: "xsync", New: func(size int64) sem.Semaphore { return semaphore.NewWeighted(size) }, Reference: true},
		{Name: "chan", New: func(size int64) sem.Semaphore { return make(rawChan, size) }, UnitOnly: true, Reference: true, IgnoresContext: true},
		{Name: "mutex", New: func(int64) sem.Semaphore { return new(mutex) }, MaxSize: 1, UnitOnly: true, Reference: true, IgnoresContext: true},
		{Name: "chansem", New: func(size int64) sem.Semaphore { return chansem.New(size) }},
		{Name: "condsem", New: func(size int64) sem.Semaphore { return condsem.New(size) }},
		{Name: "condsem-fair", New: func(size int64) sem.Semaphore { return condsem.NewFair(size) }},
		{Name: "spinsem", New: func(size int64) sem.Semaphore { return spinsem.New(size) }},
		{Name: "weighted", New: func(size int64) sem.Semaphore { return weighted.New(size) }},
	}
}

// Select returns the contenders of all whose Name matches the regular
// expression pattern (unanchored, as go test's -bench), and every
// reference whatever its name, in the order of all: the references are
// the baseline of every ratio, so they always race. An empty pattern
// selects all. Select fails on a pattern that does not compile or that
// matches no contender's name, which is a typo more often than a wish.
func Select(all []Contender, pattern string) ([]Contender, error) {
	if pattern == "" {
		return all, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("benchmarks: contender filter %q: %w", pattern, err)
	}
	var out []Contender
	matched := false
	for _, c := range all {
		m := re.MatchString(c.Name)
		matched = matched || m
		if m || c.Reference {
			out = append(out, c)
		}
	}
	if !matched {
		names := make([]string, len(all))
		for i, c := range all {
			names[i] = c.Name
		}
		return nil, fmt.Errorf("benchmarks: contender filter %q matches no contender; the contenders are %s",
			pattern, strings.Join(names, ", "))
	}
	return out, nil
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
