package etcdsem_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/etcdsem"
)

// A suspend of the machine stops the monotonic clock, which Go's timers
// run on, while the wall clock, and the server's lease, run on. A holder
// resuming from a suspend longer than its lease must not trust it: the
// server may have expired it and admitted someone else. The suspend is
// played by moving the wall clock the handle reads ahead of the monotonic
// one (a SIGSTOP cannot play it: the monotonic clock runs on while a
// process is stopped, and the existing timers see that pause).
func TestSuspendBeyondLeaseEndsTrust(t *testing.T) {
	t.Parallel()
	const ttl = 10 * time.Second
	ctx := context.Background()
	t.Run("Err and Done see it at once", func(t *testing.T) {
		t.Parallel()
		s, err := etcdsem.New(context.Background(), cli, uniqueName(t), 1, etcdsem.WithLease(ttl))
		require.NoError(t, err)
		defer s.Close()
		p, err := s.AcquirePermit(ctx, 1)
		require.NoError(t, err)
		require.NoError(t, p.Err())

		s.MoveWallClock(time.Minute)
		require.ErrorIs(t, p.Err(), etcdsem.ErrLeaseLost, "a lease a minute past its TTL on the wall clock is still trusted")
		select {
		case <-p.Done():
		default:
			t.Fatal("Done is open after a suspend past the lease")
		}
	})
	t.Run("Done closes by itself", func(t *testing.T) {
		t.Parallel()
		s, err := etcdsem.New(context.Background(), cli, uniqueName(t), 1, etcdsem.WithLease(ttl))
		require.NoError(t, err)
		defer s.Close()
		p, err := s.AcquirePermit(ctx, 1)
		require.NoError(t, err)
		done := p.Done() // taken before the suspend: nobody asks again

		s.MoveWallClock(time.Minute)
		moved := time.Now()
		// The timer looks at the wall clock every TTL/12; the keep-alives,
		// every TTL/3, would otherwise keep the trust alive on the
		// monotonic clock for good. The bound leaves room for a loaded
		// machine and stays far below TTL/3.
		select {
		case <-done:
			t.Logf("Done closed %v after the resume (TTL %v)", time.Since(moved).Round(time.Millisecond), ttl)
		case <-time.After(ttl / 4):
			t.Fatalf("Done still open %v after a resume a minute past the lease", ttl/4)
		}
		assert.ErrorIs(t, p.Err(), etcdsem.ErrLeaseLost)
	})
}
