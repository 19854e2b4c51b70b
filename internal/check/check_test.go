package check_test

import (
	"context"
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

const pkg check.Pkg = "pkg"

// Every strategy's bad input gets these words, so a strategy's own tests
// need only show that it names itself and passes the right values.
func TestPanicMessages(t *testing.T) {
	for _, tc := range []struct {
		want string
		call func()
	}{
		{"pkg: New(0): size must be at least 1", func() { pkg.PanicIfBadSize("New", 0, check.Unbounded) }},
		{"pkg: NewFair(-3): size must be at least 1", func() { pkg.PanicIfBadSize("NewFair", -3, check.Unbounded) }},
		{"pkg: New(9): size must be at most 8", func() { pkg.PanicIfBadSize("New", 9, 8) }},
		{"pkg: Resize(9): size must be at most 8", func() { pkg.PanicIfBadSize("Resize", 9, 8) }},
		{"pkg: Resize(-1): size must be at least 1", func() { pkg.PanicIfBadSize("Resize", -1, 8) }},
		{"pkg: NewAvailable(9, 0): size must be at most 8", func() { pkg.PanicIfBadAvailable("NewAvailable", 9, 0, 8) }},
		{"pkg: NewAvailable(0, 0): size must be at least 1", func() { pkg.PanicIfBadAvailable("NewAvailable", 0, 0, 8) }},
		{"pkg: NewAvailable(8, 9): available must be between 0 and the size", func() { pkg.PanicIfBadAvailable("NewAvailable", 8, 9, 8) }},
		{"pkg: NewFairAvailable(2, 3): available must be between 0 and the size", func() { pkg.PanicIfBadAvailable("NewFairAvailable", 2, 3, check.Unbounded) }},
		{"pkg: NewAvailable(2, -1): available must be between 0 and the size", func() { pkg.PanicIfBadAvailable("NewAvailable", 2, -1, check.Unbounded) }},
		{"pkg: TryAcquire(-1): negative weight", func() { pkg.PanicIfNegative("TryAcquire", -1) }},
		{"pkg: Acquire(-2): negative weight", func() { _ = pkg.ErrAcquire(context.Background(), -2, 4) }},
		{"pkg: Release(3): released more than held (2 held)", func() { pkg.PanicOverRelease(3, 2) }},
		{"pkg: Unlock: released more than held (0 held)", pkg.PanicOverUnlock},
	} {
		assert.PanicsWithValue(t, tc.want, tc.call)
	}
}

// Good input passes every check without a panic, the bounds included.
func TestGoodInputPasses(t *testing.T) {
	assert.NotPanics(t, func() {
		pkg.PanicIfBadSize("New", 1, check.Unbounded)
		pkg.PanicIfBadSize("Resize", 8, 8)
		pkg.PanicIfBadSize("New", check.Unbounded, check.Unbounded)
		pkg.PanicIfBadAvailable("NewAvailable", 8, 8, 8)
		pkg.PanicIfBadAvailable("NewAvailable", 2, 0, check.Unbounded)
		pkg.PanicIfNegative("Acquire", 0)
	})
}

func TestErrorMessages(t *testing.T) {
	for _, err := range []error{pkg.ErrExceedsSize(3, 2), pkg.ErrAcquire(context.Background(), 3, 2)} {
		require.ErrorIs(t, err, sem.ErrExceedsSize)
		assert.EqualError(t, err, "pkg: Acquire(3) on size 2: sem: request exceeds semaphore size")
	}
	err := pkg.ErrClosed(1)
	require.ErrorIs(t, err, sem.ErrClosed)
	assert.EqualError(t, err, "pkg: Acquire(1): sem: semaphore closed")
}

// ErrAcquire reports the size before the context, and nothing when both
// are fine.
func TestErrAcquire(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	assert.NoError(t, pkg.ErrAcquire(ctx, 2, 2))
	assert.NoError(t, pkg.ErrAcquire(ctx, 0, 2))
	cancel()
	assert.ErrorIs(t, pkg.ErrAcquire(ctx, 3, 2), sem.ErrExceedsSize)
	assert.Equal(t, context.Canceled, pkg.ErrAcquire(ctx, 2, 2))
}
