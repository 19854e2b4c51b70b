package adaptive_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

// watched is a weighted semaphore that keeps every size it is given, in
// order, so that a checker can bound what may be held at a grant.
type watched struct {
	*weighted.Semaphore
	mu    sync.Mutex
	sizes []int64
}

func (w *watched) Resize(size int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sizes = append(w.sizes, size)
	w.Semaphore.Resize(size)
}

// resizes is the number of sizes given so far.
func (w *watched) resizes() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.sizes)
}

// largestSince is the largest size in force at any moment since the
// resizes-th size was given: the most a correct semaphore may have granted
// to a request that began then, counting holders left over from before a
// shrink, which keep their permits until they release.
func (w *watched) largestSince(resizes int) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Max(w.sizes[resizes-1:])
}

// jitter proposes a random limit in [2, 8] at every window.
type jitter struct{ r *rand.Rand }

func (j jitter) Next(adaptive.Window) float64 { return float64(2 + j.r.IntN(7)) }

// minResizes is how often the limit must move before the stress test ends.
const minResizes = 20

// TestLimitMovesUnderLoad: goroutines start and end requests by every path
// (Start and Done, TryStart and Report, Acquire and Release, with timeouts)
// while the limit moves at every window; the permits counted as held never
// exceed the largest limit in force since the request began, and all come
// back. Each goroutine goes on until the limit has moved often enough for
// the check to mean something, however slowly a loaded machine runs it.
func TestLimitMovesUnderLoad(t *testing.T) {
	w := &watched{Semaphore: weighted.New(1)}
	l := adaptive.New(w, 4, jitter{rand.New(rand.NewPCG(1, 2))}, adaptive.WithBounds(2, 8))
	var held atomic.Int64
	var wg sync.WaitGroup
	problems := make(chan string, 100)
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 3))
			for i := 0; i < 3000 || w.resizes() <= minResizes; i++ {
				n := 1 + r.Int64N(2)
				began := w.resizes()
				release, err := grant(l, r, n)
				if err != nil {
					if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, adaptive.ErrLimitExceeded) &&
						!errors.Is(err, adaptive.ErrQueueTimeout) {
						problems <- err.Error()
					}
					continue
				}
				if h, most := held.Add(n), w.largestSince(began); h > most {
					select {
					case problems <- fmt.Sprintf("%d permits held; the largest limit since the request began was %d", h, most):
					default:
					}
				}
				if r.IntN(2) == 0 {
					runtime.Gosched()
				}
				held.Add(-n)
				release(r.IntN(4) != 0)
			}
		})
	}
	wg.Wait()
	close(problems)
	for p := range problems {
		t.Error(p)
	}
	assert.Equal(t, w.Size(), w.Available(), "every permit came back")
}

// grant takes n permits by one of the Limiter's paths, chosen by r, and
// returns what gives them back.
func grant(l *adaptive.Limiter, r *rand.Rand, n int64) (func(ok bool), error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(r.Int64N(int64(time.Millisecond))))
	defer cancel()
	switch r.IntN(3) {
	case 0:
		tok, err := l.Start(ctx, n)
		return tok.Done, err
	case 1:
		tok, ok := l.TryStart(n)
		if !ok {
			return nil, context.DeadlineExceeded
		}
		return func(ok bool) { tok.Report(time.Duration(r.Int64N(int64(time.Millisecond))), ok) }, nil
	}
	err := l.Acquire(ctx, n)
	return func(bool) { l.Release(n) }, err
}
