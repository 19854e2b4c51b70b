package redissem_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/redissem"
)

// A waiter that hears of its grant only after the grant's lease ran out
// (its notification was delayed, here by the test hook) must not take it:
// Redis may have reaped it and admitted someone else, so Acquire gives it
// back and waits on, and AcquirePermit never returns a Permit already
// lost. H holds the one permit, W waits; H releases, Redis grants W, and
// W hears of it only once H took the permit again after Redis reaped W's
// grant. W must then still be waiting, and get the permit when H releases.
func TestLateGrantIsGivenBack(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"Acquire", "AcquirePermit"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			testLateGrant(t, mode == "AcquirePermit")
		})
	}
}

func testLateGrant(t *testing.T, permit bool) {
	// Long enough that H's refreshes keep its grant on a loaded machine.
	const lease = time.Second
	rdb := newClient(t, shared.Addr())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h := newSem(t, rdb, 1, redissem.WithLease(lease))
	heard, resume := make(chan struct{}), make(chan struct{})
	var once sync.Once
	w, err := redissem.New(ctx, rdb, h.Name(), 1, redissem.WithLease(lease),
		redissem.WithGrantHeard(func() { once.Do(func() { close(heard); <-resume }) }))
	require.NoError(t, err)
	defer w.Close()

	require.NoError(t, h.Acquire(ctx, 1))
	type result struct {
		p   *redissem.Permit
		err error
	}
	res := make(chan result, 1)
	go func() {
		if permit {
			p, err := w.AcquirePermit(ctx, 1)
			res <- result{p, err}
			return
		}
		res <- result{nil, w.Acquire(ctx, 1)}
	}()
	waitFor(t, "W to queue", func() bool { n, _ := h.Waiting(); return n == 1 })
	h.Release(1) // Redis grants W, whose Acquire hears of it and is held back
	<-heard
	// Nothing refreshes W's grant, unknown to W: once its lease is over,
	// Redis reaps it and H takes the permit.
	waitFor(t, "Redis to reap W's grant", func() bool { return h.TryAcquire(1) })
	close(resume)

	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		select {
		case r := <-res:
			err := r.err
			if r.p != nil {
				err = errors.Join(err, r.p.Err())
			}
			t.Fatalf("W returned (err %v) while H holds the only permit: W's grant had expired before W heard of it", err)
		default:
		}
		if n, _ := h.Waiting(); n == 1 {
			break // W gave the grant back and queued again
		}
		require.True(t, time.Now().Before(deadline), "W neither returned nor queued again")
	}
	h.Release(1)
	r := <-res
	require.NoError(t, r.err)
	assert.Equal(t, int64(0), available(t, h), "W holds the permit")
	if permit {
		require.NoError(t, r.p.Err(), "W's Permit is valid")
		require.NoError(t, r.p.Release(ctx))
	} else {
		require.NoError(t, w.ReleaseErr(ctx, 1))
	}
	assert.Equal(t, int64(1), available(t, h))
}
