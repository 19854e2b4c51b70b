package naiveetcd_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/docs/classics/witness"
	"github.com/semacat/sem/docs/recipes/naiveetcd"
	"github.com/semacat/sem/etcdsem"
)

var keys atomic.Int64

// lastKey is the key fresh returned last.
var lastKey string

// fresh returns a key that no earlier test of this process used, so that
// -count=N starts every run from an empty semaphore.
func fresh(t *testing.T) string {
	lastKey = fmt.Sprintf("%s-%d", t.Name(), keys.Add(1))
	return lastKey
}

// holdTogether records on w the clients that are in at the same time,
// none having released: each one's critical section runs inside the
// previous one's.
func holdTogether(w *witness.Witness, holders int) {
	if holders == 0 {
		return
	}
	w.Hold(func() { holdTogether(w, holders-1) })
}

// Size 1. In turn, the second client polls while the first holds, and
// gives up at its deadline. With its whole Acquire run between the
// first's read and write (the seam, deterministic), both read 0, both
// write 1, and both get in.
func TestNaiveAdmitsTwoWhenReadsInterleave(t *testing.T) {
	ctx := context.Background()
	t.Run("in turn", func(t *testing.T) {
		w := witness.New(1)
		a, b := naiveetcd.New(cli, fresh(t), 1), naiveetcd.New(cli, lastKey, 1)
		require.NoError(t, a.Acquire(ctx))
		waitCtx, cancel := context.WithTimeout(ctx, 3*naiveetcd.Poll)
		defer cancel()
		require.ErrorIs(t, b.Acquire(waitCtx), context.DeadlineExceeded)
		holdTogether(w, 1)
		require.NoError(t, a.Release(ctx))
		assert.NoError(t, w.Report().Err())
	})
	t.Run("interleaved", func(t *testing.T) {
		w := witness.New(1)
		a, b := naiveetcd.New(cli, fresh(t), 1), naiveetcd.New(cli, lastKey, 1)
		a.BetweenReadAndWrite = func() {
			a.BetweenReadAndWrite = nil
			require.NoError(t, b.Acquire(ctx))
		}
		require.NoError(t, a.Acquire(ctx))
		holdTogether(w, 2)
		count, err := a.Count(ctx)
		require.NoError(t, err)
		t.Logf("two holders, count stored %d; witness: %+v", count, w.Report())
		assert.Equal(t, int64(1), count, "two holders, but the count says one")
		assert.EqualError(t, w.Report().Err(), "witness: 2 holders at once on a semaphore of size 1 (2 entries, 1 lost updates)")
	})
}

// Size 2, both permits held. Two releases in turn bring the count to 0;
// interleaved, both read 2 and write 1: one release is lost, and a permit
// stays taken with nobody holding it.
func TestNaiveLosesAReleaseWhenReleasesInterleave(t *testing.T) {
	ctx := context.Background()
	for _, interleave := range []bool{false, true} {
		t.Run(map[bool]string{false: "in turn", true: "interleaved"}[interleave], func(t *testing.T) {
			a, b := naiveetcd.New(cli, fresh(t), 2), naiveetcd.New(cli, lastKey, 2)
			require.NoError(t, a.Acquire(ctx))
			require.NoError(t, b.Acquire(ctx))
			if interleave {
				a.BetweenReadAndWrite = func() { require.NoError(t, b.Release(ctx)) }
				require.NoError(t, a.Release(ctx))
			} else {
				require.NoError(t, a.Release(ctx))
				require.NoError(t, b.Release(ctx))
			}
			count, err := a.Count(ctx)
			require.NoError(t, err)
			t.Logf("nobody holds; count stored %d", count)
			if interleave {
				assert.Equal(t, int64(1), count, "no release was lost")
				return
			}
			assert.Zero(t, count)
		})
	}
}

// etcdsem, same two clients and size 1: the second is refused while the
// first holds, and after both releases of a size-2 semaphore every permit
// is free again. An admission is one transaction, so there is no gap
// between a read and a write for another client to fall into.
func TestEtcdsemAdmitsOneAndLosesNoRelease(t *testing.T) {
	ctx := context.Background()
	handle := func(name string, size int64) *etcdsem.Semaphore {
		s, err := etcdsem.New(context.Background(), cli, name, size)
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, s.Close()) })
		return s
	}
	w := witness.New(1)
	a, b := handle(fresh(t), 1), handle(lastKey, 1)
	require.NoError(t, a.Acquire(ctx, 1))
	holders := 1
	if b.TryAcquire(1) {
		holders++
		b.Release(1)
	}
	holdTogether(w, holders)
	a.Release(1)
	assert.Equal(t, witness.Report{Size: 1, Entries: 1, Peak: 1}, w.Report())

	c, d := handle(fresh(t), 2), handle(lastKey, 2)
	require.NoError(t, c.Acquire(ctx, 1))
	require.NoError(t, d.Acquire(ctx, 1))
	c.Release(1)
	d.Release(1)
	free, err := c.Available(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(2), free, "a release was lost")
}
