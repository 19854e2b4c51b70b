package classics_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/docs/classics"
)

// A consumer of an empty buffer waits, and gets the first item put.
func TestBufferTakeWaitsWhileEmpty(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := classics.NewBuffer[string](2)
		done := make(chan struct{})
		var got string
		go func() {
			defer close(done)
			v, err := b.Take(context.Background())
			assert.NoError(t, err)
			got = v
		}()
		synctest.Wait()
		require.False(t, returned(done), "Take returned from an empty buffer")
		require.NoError(t, b.Put(context.Background(), "first"))
		<-done
		assert.Equal(t, "first", got)
		assert.Equal(t, 0, b.Len())
	})
}

// A producer of a full buffer waits until a consumer makes room, and the
// items come out in the order they went in.
func TestBufferPutWaitsWhileFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		b := classics.NewBuffer[int](2)
		require.NoError(t, b.Put(ctx, 1))
		require.NoError(t, b.Put(ctx, 2))
		done := make(chan struct{})
		go func() {
			defer close(done)
			assert.NoError(t, b.Put(ctx, 3))
		}()
		synctest.Wait()
		require.False(t, returned(done), "Put returned on a full buffer")
		assert.Equal(t, 2, b.Len())
		for want := 1; want <= 3; want++ {
			v, err := b.Take(ctx)
			require.NoError(t, err)
			assert.Equal(t, want, v)
			if want == 1 {
				<-done // the room made by the first Take let the third Put in
			}
		}
	})
}

// A Put or Take whose context ends while it waits returns the error and
// leaves the buffer as it was.
func TestBufferCanceledWaitChangesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := classics.NewBuffer[int](1)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := b.Take(ctx)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.NoError(t, b.Put(context.Background(), 7))
		require.ErrorIs(t, b.Put(ctx, 8), context.DeadlineExceeded)
		assert.Equal(t, 1, b.Len())
		v, err := b.Take(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 7, v)
	})
}

// Many producers and consumers at once: every item is taken exactly once,
// each producer's items in the order it put them, and the buffer never
// holds more than its capacity.
func TestBufferManyProducersAndConsumers(t *testing.T) {
	const producers, consumers, perProducer, capacity = 4, 3, 150, 3 // 600 items, 200 per consumer
	type item struct{ producer, seq int }
	b := classics.NewBuffer[item](capacity)
	ctx := context.Background()
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for seq := range perProducer {
				assert.NoError(t, b.Put(ctx, item{p, seq}))
				assert.LessOrEqual(t, b.Len(), capacity)
			}
		})
	}
	taken := make([][]item, consumers)
	var cwg sync.WaitGroup
	for c := range consumers {
		cwg.Go(func() {
			for range producers * perProducer / consumers {
				v, err := b.Take(ctx)
				assert.NoError(t, err)
				taken[c] = append(taken[c], v)
			}
		})
	}
	wg.Wait()
	cwg.Wait()
	seen := make(map[item]bool)
	for _, items := range taken {
		last := map[int]int{}
		for _, it := range items {
			assert.False(t, seen[it], "item %v taken twice", it)
			seen[it] = true
			if prev, ok := last[it.producer]; ok {
				assert.Less(t, prev, it.seq, "a consumer saw producer %d's items out of order", it.producer)
			}
			last[it.producer] = it.seq
		}
	}
	assert.Len(t, seen, producers*perProducer)
	assert.Equal(t, 0, b.Len())
}

func TestNewBufferPanicsOnNoCapacity(t *testing.T) {
	assert.PanicsWithValue(t, "classics: NewBuffer: capacity 0, want at least 1", func() { classics.NewBuffer[int](0) })
}
