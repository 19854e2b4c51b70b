package condsem_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem"
	"github.com/semacat/sem/condsem"
)

// optional is what both variants offer beyond the contract that these
// tests use.
type optional interface {
	sem.Semaphore
	sem.Resizer
	sem.Closer
	Available() int64
}

var optionals = []struct {
	name string
	new  func(size int64) optional
}{
	{"plain", func(size int64) optional { return condsem.New(size) }},
	{"fair", func(size int64) optional { return condsem.NewFair(size) }},
}

// After a shrink below the permits held, Available counts the excess as
// fewer than none free, until it comes back.
func TestAvailableAfterShrink(t *testing.T) {
	for _, v := range optionals {
		t.Run(v.name, func(t *testing.T) {
			s := v.new(4)
			require.True(t, s.TryAcquire(3))
			s.Resize(2)
			assert.Equal(t, int64(-1), s.Available())
			s.Release(3)
			assert.Equal(t, int64(2), s.Available())
		})
	}
}
