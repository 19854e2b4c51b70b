package outsideshared

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQueueTimeIsNotAFailure: "A request that waited longer than it then ran
// and failed failed because of the queue, and does not count against the
// backend." The limit is held at 2 (bounds 2..2). Each round two holders run
// 20 ms and succeed; a third Start queues behind them for ~20 ms, then runs
// waitRun and fails. We count the Drops the algorithm sees in its windows.
func TestQueueTimeIsNotAFailure(t *testing.T) {
	type cs struct {
		name      string
		queued    bool
		run       time.Duration
		expectAll bool // failures expected to count
	}
	for _, c := range []cs{
		{"waited 20ms, ran 5ms, failed (must not count)", true, 5 * time.Millisecond, false},
		{"waited 20ms, ran 19ms, failed (must not count)", true, 19 * time.Millisecond, false},
		{"waited 20ms, ran 30ms, failed (counts)", true, 30 * time.Millisecond, true},
		{"waited 0, ran 5ms, failed (counts)", false, 5 * time.Millisecond, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := &recAlg{inner: &adaptive.Gradient{}}
				l := adaptive.New(weighted.New(1), 2, rec, adaptive.WithBounds(2, 2), adaptive.WithMaxWait(100*time.Millisecond), adaptive.WithRand(newSrc(1)))
				ctx := context.Background()
				// warm-up: 100 rounds of 2 successful 10 ms requests
				for i := 0; i < 100; i++ {
					var wg sync.WaitGroup
					for k := 0; k < 2; k++ {
						wg.Add(1)
						go func() {
							defer wg.Done()
							tok, err := l.Start(ctx, 1)
							if !assert.NoError(t, err) {
								return
							}
							time.Sleep(10 * time.Millisecond)
							tok.Done(true)
						}()
					}
					wg.Wait()
				}
				before := 0
				for _, w := range rec.wins {
					before += int(w.w.Drops)
				}
				rounds, fails := 300, 0
				var waits []float64
				for i := 0; i < rounds; i++ {
					var wg sync.WaitGroup
					if c.queued {
						for k := 0; k < 2; k++ {
							tok, err := l.Start(ctx, 1)
							require.NoError(t, err)
							wg.Add(1)
							go func() { defer wg.Done(); time.Sleep(20 * time.Millisecond); tok.Done(true) }()
						}
					}
					s := time.Now()
					tok, err := l.Start(ctx, 1)
					if err != nil {
						t.Logf("round %d: %v", i, err)
						wg.Wait()
						continue
					}
					waits = append(waits, time.Since(s).Seconds())
					time.Sleep(c.run)
					tok.Done(false)
					fails++
					wg.Wait()
					// a successful pair to keep windows closing
					for k := 0; k < 2; k++ {
						wg.Add(1)
						go func() {
							defer wg.Done()
							tok, err := l.Start(ctx, 1)
							if err == nil {
								time.Sleep(10 * time.Millisecond)
								tok.Done(true)
							}
						}()
					}
					wg.Wait()
				}
				// flush: more successes so the last window closes
				for i := 0; i < 50; i++ {
					tok, _ := l.Start(ctx, 1)
					time.Sleep(10 * time.Millisecond)
					tok.Done(true)
				}
				drops := 0
				for _, w := range rec.wins {
					drops += int(w.w.Drops)
				}
				drops -= before
				t.Logf("%s: %d failed requests (mean wait %.1fms), Drops seen by the algorithm: %d", c.name, fails, 1e3*quantile(waits, 0.5), drops)
				if !c.expectAll {
					assert.Zero(t, drops, "queue-caused failures counted against the backend: %d of %d", drops, fails)
				} else {
					assert.GreaterOrEqual(t, drops, fails*8/10, "backend failures not counted: %d of %d", drops, fails)
				}
			})
		})
	}
}
