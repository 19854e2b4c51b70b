package check_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/check"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// Every strategy's bad input gets these words, so a strategy's own tests
// need only show that it names itself and passes the right values.
func TestPanicMessages(t *testing.T) {
	for _, tc := range []struct {
		want string
		call func()
	}{
		{"pkg: New(0): size must be at least 1", func() { check.Size("pkg", 0) }},
		{"pkg: NewFair(-3): size must be at least 1", func() { check.ConstructorSize("pkg", "NewFair", -3) }},
		{"pkg: New(9): size must be at most 8", func() { check.SizeAtMost("pkg", "New", 9, 8) }},
		{"pkg: Resize(9): size must be at most 8", func() { check.SizeAtMost("pkg", "Resize", 9, 8) }},
		{"pkg: NewAvailable(9, 0): size must be at most 8", func() { check.AvailableAtMost("pkg", "NewAvailable", 9, 0, 8) }},
		{"pkg: NewAvailable(0, 0): size must be at least 1", func() { check.AvailableAtMost("pkg", "NewAvailable", 0, 0, 8) }},
		{"pkg: NewAvailable(8, 9): available must be between 0 and the size", func() { check.AvailableAtMost("pkg", "NewAvailable", 8, 9, 8) }},
		{"pkg: NewAvailable(0, 0): size must be at least 1", func() { check.Available("pkg", "NewAvailable", 0, 0) }},
		{"pkg: NewFairAvailable(2, 3): available must be between 0 and the size", func() { check.Available("pkg", "NewFairAvailable", 2, 3) }},
		{"pkg: NewAvailable(2, -1): available must be between 0 and the size", func() { check.Available("pkg", "NewAvailable", 2, -1) }},
		{"pkg: Resize(-1): size must be at least 1", func() { check.Resize("pkg", -1) }},
		{"pkg: TryAcquire(-1): negative weight; the number of permits must be at least 0", func() { check.Weight("pkg", "TryAcquire", -1) }},
		{"pkg: Release(3): released more than held (2 held)", func() { check.OverRelease("pkg", 3, 2) }},
		{"pkg: Unlock: released more than held (no permit held)", func() { check.OverUnlock("pkg") }},
	} {
		assert.PanicsWithValue(t, tc.want, tc.call)
	}
}

// Good input passes every check without a panic, the bounds included.
func TestGoodInputPasses(t *testing.T) {
	assert.NotPanics(t, func() {
		check.Size("pkg", 1)
		check.ConstructorSize("pkg", "NewFair", 1)
		check.SizeAtMost("pkg", "New", 8, 8)
		check.AvailableAtMost("pkg", "NewAvailable", 8, 8, 8)
		check.Available("pkg", "NewAvailable", 2, 0)
		check.Available("pkg", "NewAvailable", 2, 2)
		check.Resize("pkg", 1)
		check.Weight("pkg", "Acquire", 0)
	})
}

func TestErrorMessages(t *testing.T) {
	err := check.ExceedsSize("pkg", 3, 2)
	require.ErrorIs(t, err, sem.ErrExceedsSize)
	assert.EqualError(t, err, "pkg: Acquire(3) can never succeed on a semaphore of size 2; ask for at most 2 permits: sem: request exceeds semaphore size")
	err = check.Closed("pkg", 1)
	require.ErrorIs(t, err, sem.ErrClosed)
	assert.EqualError(t, err, "pkg: Acquire(1): the semaphore was closed; no permit will be granted: sem: semaphore closed")
}
