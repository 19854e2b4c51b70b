package adaptive_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

// drive runs workers goroutines for 10 s, each admitting requests of class
// c one after another with TryStartClass: a request takes noLoad on an idle
// backend, or 80% to 120% of it if jitter is set; a worker pauses think
// after each request and 5ms after a refusal. It must run in a synctest
// bubble.
func drive(l *adaptive.Limiter, workers, c int, think time.Duration, jitter bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for i := range workers {
		r := rand.New(rand.NewPCG(uint64(i), 1))
		wg.Go(func() {
			time.Sleep(time.Duration(i) * time.Millisecond) // not all at once
			for ctx.Err() == nil {
				tok, ok := l.TryStartClass(c, 1)
				if !ok {
					time.Sleep(5 * time.Millisecond)
					continue
				}
				latency := noLoad
				if jitter {
					latency = noLoad * time.Duration(8+r.IntN(5)) / 10
				}
				time.Sleep(latency)
				tok.Done(true)
				time.Sleep(think)
			}
		})
	}
	wg.Wait()
}

// everyOne samples every request, from any number of goroutines.
type everyOne struct{}

func (everyOne) Uint64() uint64 { return 0 }

// TestClassRefusalsGrowTheLimit: 24 requests of class 3 want to run at
// once on a backend that serves any number at no-load latency. Class 3
// leaves 30% of the limit free, so at a limit of 20 at most 14 run and
// the rest are refused: the permits in use stay below the limit, and if
// the windows looked app-limited the limit would never grow to serve them.
// A refusal marks the window as held down by the limit, so each algorithm
// grows the limit until class 3 fits: 24 beside 30% free is a limit of 35.
func TestClassRefusalsGrowTheLimit(t *testing.T) {
	for _, alg := range []adaptive.Algorithm{&adaptive.AIMD{}, &adaptive.Vegas{}, &adaptive.Gradient{}} {
		t.Run(fmt.Sprintf("%T", alg), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := adaptive.New(weighted.New(1), 20, alg, adaptive.WithRand(everyOne{}))
				drive(l, 24, 3, 0, false)
				assert.GreaterOrEqual(t, l.Limit(), int64(33), "%T: the limit stayed where class 3 is refused", alg)
			})
		})
	}
}

// TestLowLoadHoldsTheLimit: 6 requests of class 2 at most run at once, at
// a limit of 20, with latencies that vary by ±20%: the windows are
// app-limited, so the limit may not grow, and their latency, made by the
// callers' few requests, says nothing of the limit either, so it may not
// shrink. An algorithm that shrank on the jitter but could not grow back
// would sink until class 2, which leaves a fifth of the limit free, is
// refused on a backend that is nearly idle.
func TestLowLoadHoldsTheLimit(t *testing.T) {
	for _, alg := range []adaptive.Algorithm{&adaptive.AIMD{}, &adaptive.Vegas{}, &adaptive.Gradient{}} {
		t.Run(fmt.Sprintf("%T", alg), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := adaptive.New(weighted.New(1), 20, alg, adaptive.WithRand(everyOne{}))
				drive(l, 6, 2, 2*noLoad, true)
				assert.EqualValues(t, 20, l.Limit(), "%T: the limit moved at low load", alg)
				assert.Zero(t, l.Refused(), "%T: a request was refused at low load", alg)
			})
		})
	}
}
