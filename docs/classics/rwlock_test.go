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

// Readers share the lock, a writer has it alone: a writer never sees
// another holder, and readers do overlap.
func TestRWLockExcludesWriters(t *testing.T) {
	for _, st := range strategies {
		t.Run(st.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := classics.NewRWLock(st.new(3, 3))
				ctx := context.Background()
				var readers, writers, readersPeak atomic.Int64
				var wg sync.WaitGroup
				for i := range 6 {
					wg.Go(func() {
						for range 20 {
							if i%3 == 0 {
								require.NoError(t, l.Lock(ctx))
								assert.Equal(t, int64(1), writers.Add(1))
								assert.Zero(t, readers.Load(), "a reader holds the lock with a writer")
								time.Sleep(time.Millisecond)
								writers.Add(-1)
								l.Unlock()
								continue
							}
							require.NoError(t, l.RLock(ctx))
							n := readers.Add(1)
							readersPeak.Store(max(readersPeak.Load(), n))
							assert.Zero(t, writers.Load(), "a writer holds the lock with a reader")
							time.Sleep(time.Millisecond)
							readers.Add(-1)
							l.RUnlock()
						}
					})
				}
				wg.Wait()
				assert.Greater(t, readersPeak.Load(), int64(1), "readers never shared the lock")
			})
		})
	}
}

const (
	readHold    = 2 * time.Millisecond
	readersStop = time.Second // the readers stop reading then
	writerStart = 5 * time.Millisecond
)

// writerWait runs two readers that keep the lock read-held without a gap
// (each holds it for readHold and they are half a hold apart, so one
// always holds it while the other comes back) until readersStop, and one
// writer that asks for the lock at writerStart. It returns how long the
// writer waited, and how many read locks were granted while it waited,
// on the bubble's clock.
func writerWait(l *classics.RWLock) (waited time.Duration, overtaken int64) {
	ctx := context.Background()
	start := time.Now()
	var writerWaiting atomic.Bool
	var overtakes atomic.Int64
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			time.Sleep(time.Duration(i) * readHold / 2)
			for time.Since(start) < readersStop {
				if l.RLock(ctx) != nil {
					panic("RLock failed with a context that is never done")
				}
				if writerWaiting.Load() {
					overtakes.Add(1)
				}
				time.Sleep(readHold)
				l.RUnlock()
			}
		})
	}
	time.Sleep(writerStart)
	writerWaiting.Store(true)
	asked := time.Now()
	if l.Lock(ctx) != nil {
		panic("Lock failed with a context that is never done")
	}
	waited = time.Since(asked)
	writerWaiting.Store(false)
	l.Unlock()
	wg.Wait()
	return waited, overtakes.Load()
}

// Whether the writer starves is the strategy's doing. On weighted and the
// fair condsem (first come, first served) the readers that come after the
// writer queue behind it: it waits for the readers already in, at most one
// hold, and no read lock is granted meanwhile. spinsem and chansem let a
// reader slip in ahead once or twice, then serve the writer (spinsem's
// starvation mode, chansem's queue of waiters). The plain condsem lets
// every reader barge past it: the writer gets in only when the readers
// stop, after hundreds of read locks granted while it waited.
func TestWriterStarvationDependsOnTheStrategy(t *testing.T) {
	tests := []struct {
		strategy     string
		starves      bool
		maxWait      time.Duration // when it does not starve
		maxOvertaken int64
	}{
		{strategy: "weighted", maxWait: readHold, maxOvertaken: 0},
		{strategy: "condsem-fair", maxWait: readHold, maxOvertaken: 0},
		{strategy: "spinsem", maxWait: 2 * readHold, maxOvertaken: 2},
		{strategy: "chansem", maxWait: 2 * readHold, maxOvertaken: 2},
		{strategy: "condsem", starves: true},
	}
	for _, tt := range tests {
		t.Run(tt.strategy, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				waited, overtaken := writerWait(classics.NewRWLock(strategy(t, tt.strategy)(2, 2)))
				t.Logf("the writer waited %v; %d read locks were granted meanwhile", waited, overtaken)
				if tt.starves {
					// The readers stop asking at readersStop; the last one
					// holds the lock at most readHold longer.
					assert.GreaterOrEqual(t, waited, readersStop-writerStart-readHold, "the writer got in while readers kept reading")
					assert.Greater(t, overtaken, int64(readersStop/readHold), "readers did not keep overtaking the writer")
					return
				}
				assert.LessOrEqual(t, waited, tt.maxWait)
				assert.LessOrEqual(t, overtaken, tt.maxOvertaken)
			})
		})
	}
}

// strategy returns the constructor of the named strategy.
func strategy(t *testing.T, name string) classics.NewAvailableFunc {
	for _, st := range strategies {
		if st.name == name {
			return st.new
		}
	}
	t.Fatalf("no strategy %q", name)
	return nil
}
