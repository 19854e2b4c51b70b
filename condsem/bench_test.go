package condsem_test

import (
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/condsem"
	"github.com/semacat/sem/internal/acquiretest"
)

// BenchmarkUncontended is Acquire and Release of each variant with nobody
// else: a look at the context under the mutex, and the permits.
func BenchmarkUncontended(b *testing.B) {
	b.Run("variant=plain", func(b *testing.B) {
		acquiretest.BenchUncontended(b, func(size int64) sem.Semaphore { return condsem.New(size) })
	})
	b.Run("variant=fair", func(b *testing.B) {
		acquiretest.BenchUncontended(b, func(size int64) sem.Semaphore { return condsem.NewFair(size) })
	})
}
