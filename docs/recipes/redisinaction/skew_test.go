package redisinaction_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/docs/classics/witness"
	"github.com/semacat/sem/docs/recipes/redisinaction"
	"github.com/semacat/sem/redissem"
)

// This file is also the project's clock-skew test for the distributed
// strategies: the book's semaphores trust each client's clock, and each
// breaks when clocks differ; redissem, given the same clients, has no
// client clock to skew (its leases and timeouts run on the Redis server's
// clock), and admits one holder.

const timeout = 10 * time.Second // how long a holder stays valid, as in the book

// skewed returns a clock that is off the real one by d.
func skewed(d time.Duration) redisinaction.Clock {
	return func() time.Time { return time.Now().Add(d) }
}

// acquirer is a client of one of the recipes.
type acquirer interface {
	TryAcquire(ctx context.Context) (bool, error)
	Release(ctx context.Context) error
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

// bothHold has first take the only permit, then second try while first
// holds it, and records on w who held at once. It returns whether second
// got in.
func bothHold(t *testing.T, w *witness.Witness, first, second acquirer) bool {
	ctx := context.Background()
	ok, err := first.TryAcquire(ctx)
	require.NoError(t, err)
	require.True(t, ok, "the first client did not get the free permit")
	secondIn, err := second.TryAcquire(ctx)
	require.NoError(t, err)
	holders := 1
	if secondIn {
		holders++
		require.NoError(t, second.Release(ctx))
	}
	holdTogether(w, holders)
	require.NoError(t, first.Release(ctx))
	return secondIn
}

// assertSkewAdmits checks that the second client got in, and the witness
// saw two holders on a semaphore of size 1, exactly when the clocks were
// skewed.
func assertSkewAdmits(t *testing.T, w *witness.Witness, skewed, secondIn bool) {
	t.Logf("clocks skewed: %v; the second client got in: %v; witness: %+v", skewed, secondIn, w.Report())
	assert.Equal(t, skewed, secondIn)
	if !skewed {
		assert.NoError(t, w.Report().Err())
		return
	}
	assert.EqualError(t, w.Report().Err(), "witness: 2 holders at once on a semaphore of size 1 (2 entries, 1 lost updates)")
}

// The timestamp-scored semaphore: a client whose clock is 5s behind scores
// below the holder, ranks first and gets in; with equal clocks it is
// refused, which shows the skew, not the setup, admits it.
func TestBasicOverAdmitsWhenClocksDiffer(t *testing.T) {
	for _, skew := range []time.Duration{0, -5 * time.Second} {
		t.Run("skew "+skew.String(), func(t *testing.T) {
			rdb, name, w := newClient(t), t.Name(), witness.New(1)
			a := redisinaction.NewBasic(rdb, name, 1, timeout, skewed(0), "a")
			b := redisinaction.NewBasic(rdb, name, 1, timeout, skewed(skew), "b")
			assertSkewAdmits(t, w, skew != 0, bothHold(t, w, a, b))
		})
	}
}

// The counter-based "fair" semaphore, clocks equal: a takes counter 1,
// and before its second step b takes counter 2 and gets in; then a's
// counter 1 ranks first and a gets in too. Without the interleaving, b is
// refused while a holds.
func TestFairRacesBetweenItsSteps(t *testing.T) {
	t.Run("in turn", func(t *testing.T) {
		rdb, name, w := newClient(t), t.Name(), witness.New(1)
		a := redisinaction.NewFair(rdb, name, 1, timeout, skewed(0), "a")
		b := redisinaction.NewFair(rdb, name, 1, timeout, skewed(0), "b")
		assert.False(t, bothHold(t, w, a, b))
		assert.NoError(t, w.Report().Err())
	})
	t.Run("interleaved", func(t *testing.T) {
		rdb, name, w := newClient(t), t.Name(), witness.New(1)
		ctx := context.Background()
		a := redisinaction.NewFair(rdb, name, 1, timeout, skewed(0), "a")
		b := redisinaction.NewFair(rdb, name, 1, timeout, skewed(0), "b")
		var bIn bool
		a.BetweenSteps = func() {
			var err error
			bIn, err = b.TryAcquire(ctx)
			require.NoError(t, err)
		}
		aIn, err := a.TryAcquire(ctx)
		require.NoError(t, err)
		require.True(t, bIn, "b did not get in between a's steps")
		require.True(t, aIn, "a did not get in after b")
		holdTogether(w, 2)
		require.NoError(t, a.Release(ctx))
		require.NoError(t, b.Release(ctx))
		t.Logf("witness: %+v", w.Report())
		assert.EqualError(t, w.Report().Err(), "witness: 2 holders at once on a semaphore of size 1 (2 entries, 1 lost updates)")
	})
}

// The lock-guarded semaphore: no step of another client falls between
// Fair's steps any more, but a client whose clock is ahead by more than
// the timeout finds the holder stale, evicts it and gets in beside it.
// With the clocks equal it is refused.
func TestLockedEvictsValidHoldersWhenAClockIsAhead(t *testing.T) {
	for _, skew := range []time.Duration{0, timeout + time.Second} {
		t.Run("skew "+skew.String(), func(t *testing.T) {
			rdb, name, w := newClient(t), t.Name(), witness.New(1)
			a := redisinaction.NewLocked(rdb, name, 1, timeout, time.Second, skewed(0), "a")
			b := redisinaction.NewLocked(rdb, name, 1, timeout, time.Second, skewed(skew), "b")
			assertSkewAdmits(t, w, skew != 0, bothHold(t, w, a, b))
		})
	}
}

// redisAcquirer is a redissem handle in the shape of the recipes.
type redisAcquirer struct{ s *redissem.Semaphore }

func (r redisAcquirer) TryAcquire(context.Context) (bool, error) { return r.s.TryAcquire(1), nil }
func (r redisAcquirer) Release(ctx context.Context) error        { return r.s.ReleaseErr(ctx, 1) }

// redissem with the same two clients: it reads no client clock, so there is
// nothing to skew (its leases run on the server's clock, TIME inside its
// scripts), and the second client is refused while the first holds.
func TestRedissemAdmitsOneWhateverTheClocks(t *testing.T) {
	rdb, name, w := newClient(t), t.Name(), witness.New(1)
	handle := func() redisAcquirer {
		s, err := redissem.New(context.Background(), rdb, name, 1)
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, s.Close()) })
		return redisAcquirer{s}
	}
	assert.False(t, bothHold(t, w, handle(), handle()))
	assert.Equal(t, witness.Report{Size: 1, Entries: 1, Peak: 1}, w.Report())
}
