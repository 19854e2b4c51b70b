package acquiretest

import (
	"context"
	"errors"
	"math"
	"testing"
	"testing/synctest"

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
		wantWaiting(t, s, "two requests of more than half of math.MaxInt64", 2, math.MaxInt64)

		for _, c := range []*Call{first, second} {
			c.Cancel()
			synctest.Wait()
			if !errors.Is(c.Err, context.Canceled) {
				t.Fatalf("Acquire(ctx, %d) canceled returned %v; want context.Canceled", c.N, c.Err)
			}
			if c == first {
				wantWaiting(t, s, "one request left", 1, half)
			}
		}
		wantWaiting(t, s, "none left", 0, 0)
	})
}

// wantWaiting reports an error unless s's Waiting returns requests and
// permits.
func wantWaiting(t *testing.T, s sem.Observer, when string, requests int, permits int64) {
	t.Helper()
	if r, p := s.Waiting(); r != requests || p != permits {
		t.Errorf("%s: Waiting() = %d, %d; want %d, %d", when, r, p, requests, permits)
	}
}
