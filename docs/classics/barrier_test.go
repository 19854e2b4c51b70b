package classics_test

import (
	"context"
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

// preemptFirstOpener stands in for the scheduler: the goroutine that opens
// the first turnstile stops for a millisecond between opening and passing
// it. In the bubble every other goroutine runs until it blocks before the
// clock moves, so the ones it woke go as far as they can meanwhile.
func preemptFirstOpener() func() {
	var once sync.Once
	return func() { once.Do(func() { time.Sleep(time.Millisecond) }) }
}

// runRounds has n goroutines call wait for rounds rounds and counts the
// times one left a round before all n had arrived at it. A goroutine stops
// at its first error from wait.
func runRounds(n, rounds int, wait func() error) (early int64) {
	arrived := make([]atomic.Int64, rounds)
	var left atomic.Int64
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for r := range rounds {
				arrived[r].Add(1)
				if wait() != nil {
					return
				}
				if arrived[r].Load() < int64(n) {
					left.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return left.Load()
}

// With a single turnstile, the permit the opener releases for itself is
// anyone's: while the opener is stopped, a goroutine it woke loops around
// and passes the next round alone on that permit. FIFO does not help:
// weighted and condsem-fair hand the permits to the waiters in order, and
// the spare one is still free for the first to ask. The stranded goroutines
// give up when the context ends, a simulated second later.
func TestOneTurnstileLetsAWokenGoroutineLapThePreemptedOpener(t *testing.T) {
	const n, rounds = 3, 2
	for _, st := range strategies {
		t.Run(st.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), time.Second)
				defer cancel()
				b := classics.NewOneTurnstile(n, st.new, preemptFirstOpener())
				early := runRounds(n, rounds, func() error { return b.Wait(ctx) })
				assert.Positive(t, early, "nobody left a round before everyone arrived")
			})
		})
	}
}

// The same preemption does not break the two-turnstile barrier: the spare
// permit of the entry turnstile can only go to a goroutine still in the
// entry phase, and there is none until the opener has passed.
func TestBarrierSurvivesAPreemptedOpener(t *testing.T) {
	const n, rounds = 3, 4
	for _, st := range strategies {
		t.Run(st.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := classics.NewBarrier(n, st.new)
				classics.SetAfterOpen(b, preemptFirstOpener())
				early := runRounds(n, rounds, func() error { b.Wait(); return nil })
				assert.Zero(t, early, "a goroutine left a round before everyone arrived")
			})
		})
	}
}

func TestNewBarrierPanicsOnNoGoroutine(t *testing.T) {
	assert.PanicsWithValue(t, "classics: NewBarrier: 0 goroutines, want at least 1", func() {
		classics.NewBarrier(0, strategies[0].new)
	})
}
