package acquiretest

import (
	"context"
	"math"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem"
)

// WaitingSaturates checks that Waiting reports math.MaxInt64 permits while
// the waiting requests ask for more than an int64 holds, and the exact
// total again once enough of them are gone. newEmpty returns a semaphore
// of size math.MaxInt64 with no permit free.
func WaitingSaturates(t *testing.T, newEmpty func() interface {
	sem.Semaphore
	sem.Observer
}) {
	synctest.Test(t, func(t *testing.T) {
		s := newEmpty()
		half := int64(math.MaxInt64/2 + 1)
		first := Go(s, half)
		synctest.Wait()
		second := Go(s, half)
		synctest.Wait()
		requests, permits := s.Waiting()
		assert.Equal(t, 2, requests)
		assert.Equal(t, int64(math.MaxInt64), permits, "two requests of more than half of math.MaxInt64")

		first.Cancel()
		synctest.Wait()
		require.ErrorIs(t, first.Err, context.Canceled)
		requests, permits = s.Waiting()
		assert.Equal(t, 1, requests)
		assert.Equal(t, half, permits, "one request left")

		second.Cancel()
		synctest.Wait()
		require.ErrorIs(t, second.Err, context.Canceled)
		requests, permits = s.Waiting()
		assert.Zero(t, requests)
		assert.Zero(t, permits)
	})
}
