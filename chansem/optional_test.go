package chansem_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/internal/acquiretest"
)

var _ sem.Observer = (*chansem.Semaphore)(nil)

// A multi-permit Acquire gathers on a path of its own, which semtest's
// OnWait rows reach only when it waits: one that gathers every permit
// without waiting must not be reported either, and one that waits is
// reported once, with its weight and the whole time it waited.
func TestOnWaitMultiPermit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := chansem.New(3)
		var events []sem.WaitEvent
		s.OnWait(func(e sem.WaitEvent) { events = append(events, e) })
		require.NoError(t, s.Acquire(context.Background(), 3))
		assert.Empty(t, events, "an Acquire(3) that found every permit free was reported")

		w := acquiretest.Go(s, 2)
		synctest.Wait()
		time.Sleep(3 * time.Second)
		s.Release(1)
		synctest.Wait()
		time.Sleep(2 * time.Second)
		s.Release(1)
		synctest.Wait()
		require.True(t, w.Served())
		require.Len(t, events, 1)
		assert.Equal(t, int64(2), events[0].N)
		assert.NoError(t, events[0].Err)
		assert.Equal(t, 5*time.Second, events[0].Waited())
		s.Release(3)
		w.Cancel()
	})
}
