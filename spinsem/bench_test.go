package spinsem_test

import (
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
