package adaptive_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

// saturate runs workers goroutines for d, each starting requests one after
// another with TryStart, which take a time drawn from the exponential
// distribution of mean noLoad, whatever the load: a backend with no queue
// and work that varies as widely as a queueing model's. A refused worker
// pauses a millisecond. It must run in a synctest bubble.
func saturate(l *adaptive.Limiter, workers int, d time.Duration) {
	saturateWith(l, workers, d, func(r *rand.Rand) time.Duration {
		return time.Duration(r.ExpFloat64() * float64(noLoad))
	})
}

// saturateWith is saturate with requests that take work's draws.
func saturateWith(l *adaptive.Limiter, workers int, d time.Duration, work func(*rand.Rand) time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var wg sync.WaitGroup
	for i := range workers {
		r := rand.New(rand.NewPCG(uint64(i), 2))
		wg.Go(func() {
			for ctx.Err() == nil {
				tok, ok := l.TryStart(1)
				if !ok {
					time.Sleep(time.Millisecond)
					continue
				}
				time.Sleep(work(r))
				tok.Done(true)
			}
		})
	}
	wg.Wait()
}

// seeded makes the Limiter sample the same requests at every run, so that
// a test's outcome does not depend on which requests the default generator
// picked. The source is locked, since saturate's workers
// start requests from many goroutines.
func seeded() adaptive.Option {
	return adaptive.WithRand(&lockedSource{src: rand.NewPCG(1, 2)})
}

// lockedSource is a rand.Source safe for concurrent use.
type lockedSource struct {
	mu  sync.Mutex
	src rand.Source
}

func (s *lockedSource) Uint64() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.src.Uint64()
}

// TestGradientExponentialWork: exponential work on a backend with no
// queue leaves nothing to shrink the limit for. The fastest of a window's
// requests is far above the fastest ever seen there, by chance alone; read
// against it, Gradient's limit sank to a request or two. Read as the
// window's mean against the probes' mean, it holds.
func TestGradientExponentialWork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := adaptive.New(weighted.New(1), 20, &adaptive.Gradient{}, seeded())
		saturate(l, 40, 20*time.Second)
		assert.GreaterOrEqual(t, l.Limit(), int64(20), "nothing queued, the limit must not sink")
	})
}

// TestSpreadTellsTheSignal: the Limiter gives the algorithm the no-load
// mean, the baseline of a window's mean, for work whose time varies
// widely, exponential work, and it is the work's mean; work of one
// latency keeps the fastest request's signal: no no-load mean is given.
func TestSpreadTellsTheSignal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hold{}
		l := adaptive.New(weighted.New(1), 20, h, seeded())
		saturate(l, 40, 10*time.Second)
		last := h.seen[len(h.seen)-1]
		require.NotZero(t, last.NoLoadMeanRTT, "exponential work varies widely")
		// The baseline is the median of a few probes' means, each of a
		// window of some hundred samples whose time varies as much as
		// their mean: in 100 runs it was off by 4% at the median, 12%
		// at the 90th percentile and 21% at most, and by 31% in one
		// other run. The fastest request, which the baseline replaces,
		// is a small fraction of the mean.
		assert.InEpsilon(t, noLoad, last.NoLoadMeanRTT, 0.4, "the no-load mean is the work's mean")
	})
	synctest.Test(t, func(t *testing.T) {
		h := &hold{}
		l := adaptive.New(weighted.New(1), 20, h)
		for range 1000 {
			round(t, l, int(l.Limit()), noLoad, true)
		}
		for _, w := range h.seen {
			require.Zero(t, w.NoLoadMeanRTT, "work of one latency read as varying widely at %+v", w)
		}
	})
}

// TestNarrowedWorkRelearnsNoLoad: after a phase of exponential work, work
// that varies by ±20% again. The lowest latency seen while the work varied
// widely is far below any the work now takes, so an algorithm that reads
// the fastest request against it (AIMD, Vegas) reads a queue that is not
// there and sinks to its floor; and the probe that would learn the no-load
// latency anew comes only seconds later, since probes of widely varying
// work are spaced widely. The windows' spread tells the work narrowed at
// once: within a second the no-load latency is the narrow work's, and no
// no-load mean is given.
func TestNarrowedWorkRelearnsNoLoad(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hold{}
		l := adaptive.New(weighted.New(1), 20, h, seeded())
		saturate(l, 40, 10*time.Second)
		require.NotZero(t, h.seen[len(h.seen)-1].NoLoadMeanRTT, "exponential work varies widely")
		require.Less(t, h.seen[len(h.seen)-1].NoLoadRTT, noLoad/10, "the fastest of exponential work")
		saturateWith(l, 40, time.Second, func(r *rand.Rand) time.Duration {
			return time.Duration((0.8 + 0.4*r.Float64()) * float64(noLoad))
		})
		last := h.seen[len(h.seen)-1]
		assert.Zero(t, last.NoLoadMeanRTT, "±20% work does not vary widely")
		assert.GreaterOrEqual(t, last.NoLoadRTT, 8*noLoad/10, "the no-load latency is the ±20% work's")
	})
}
