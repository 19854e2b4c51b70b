package classics_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/docs/classics"
)

// Nobody passes the barrier before the last goroutine arrives.
func TestBarrierWaitsForTheLast(t *testing.T) {
	for _, st := range strategies {
		t.Run(st.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := classics.NewBarrier(3, st.new)
				var passed atomic.Int64
				var wg sync.WaitGroup
				for range 2 {
					wg.Go(func() { b.Wait(); passed.Add(1) })
				}
				synctest.Wait()
				require.Zero(t, passed.Load(), "a goroutine passed before all three arrived")
				b.Wait()
				wg.Wait()
				assert.Equal(t, int64(2), passed.Load())
			})
		})
	}
}

// Used round after round, on every strategy, the barrier keeps the rounds
// apart: whoever leaves round r finds all n goroutines arrived at round r,
// and none of them already in round r+2. Who is slowest changes from round
// to round, and half of the rounds nobody sleeps at all, so that the
// goroutine that opens a turnstile races the ones it woke for the next
// round.
func TestBarrierKeepsRoundsApart(t *testing.T) {
	const n, rounds = 4, 100
	for _, st := range strategies {
		t.Run(st.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := classics.NewBarrier(n, st.new)
				var arrived [rounds + 2]atomic.Int64
				var wg sync.WaitGroup
				for i := range n {
					wg.Go(func() {
						for r := range rounds {
							if r%2 == 0 && (i+r)%n == 0 {
								time.Sleep(time.Millisecond) // this round's slowest
							}
							arrived[r].Add(1)
							b.Wait()
							assert.Equal(t, int64(n), arrived[r].Load(), "left round %d before everyone arrived", r)
							assert.Zero(t, arrived[r+2].Load(), "someone reached round %d while round %d was ending", r+2, r)
						}
					})
				}
				wg.Wait()
			})
		})
	}
}

func TestNewBarrierPanicsOnNoGoroutine(t *testing.T) {
	assert.PanicsWithValue(t, "classics: NewBarrier: 0 goroutines, want at least 1", func() {
		classics.NewBarrier(0, strategies[0].new)
	})
}
