package condsem_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMixedContexts runs Acquires whose context can never be done, which
// wait on the condition variable's sync.Cond, beside Acquires whose context
// can be canceled, which wait on channels of their own, and some of which
// time out while they wait. Every Release must wake both kinds: a lost
// wake-up leaves goroutines blocked for good, which the bubble reports as a
// deadlock. Each kind is counted on each path, so the test shows it reached
// them all.
func TestMixedContexts(t *testing.T) {
	const (
		size    = 3
		workers = 8
		rounds  = 200
	)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := v.new(size)
				var held atomic.Int64
				var granted, canceled [2]atomic.Int64 // by kind: 0 forever, 1 cancelable
				var wg sync.WaitGroup
				for w := range workers {
					kind := w % 2
					wg.Go(func() {
						for i := range rounds {
							n := int64(1 + (w+i)%size)
							ctx, cancel := context.Background(), context.CancelFunc(func() {})
							switch {
							case kind == 1 && i%2 == 0: // cancelable, canceled only after it returns
								ctx, cancel = context.WithCancel(context.Background())
							case kind == 1:
								ctx, cancel = context.WithTimeout(context.Background(), time.Duration(1+i%3)*time.Microsecond)
							}
							err := s.Acquire(ctx, n)
							cancel()
							if errors.Is(err, context.DeadlineExceeded) {
								canceled[kind].Add(1)
								continue
							}
							require.NoError(t, err)
							granted[kind].Add(1)
							assert.LessOrEqual(t, held.Add(n), int64(size), "more permits held than the size")
							time.Sleep(time.Duration(1+i%2) * time.Microsecond)
							held.Add(-n)
							s.Release(n)
						}
					})
				}
				wg.Wait()
				assert.Equal(t, int64(size), s.Available())
				assert.Positive(t, granted[0].Load(), "no Acquire that cannot be canceled was granted")
				assert.Positive(t, granted[1].Load(), "no cancelable Acquire was granted")
				assert.Positive(t, canceled[1].Load(), "no cancelable Acquire was canceled while it waited")
				assert.Equal(t, int64(workers/2*rounds), granted[0].Load(), "an Acquire that cannot be canceled failed")
			})
		})
	}
}
