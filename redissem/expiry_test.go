package redissem

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests drive the expiry logic of a handle with no Redis behind it,
// in a synctest bubble: its grants are recorded as an Acquire records them,
// and nothing refreshes them unless the test does.

// bareHandle returns a handle with its expiry timer and nothing else: no
// client, no refresher, no subscription.
func bareHandle(lease time.Duration) *Semaphore {
	s := &Semaphore{name: "bare", lease: lease, margin: safetyMargin(lease),
		pending: make(map[string]struct{}), kick: make(chan struct{}, 1)}
	s.startExpiry()
	return s
}

// holdSince records a grant whose lease started after since, as a Permit.
func holdSince(t *testing.T, s *Semaphore, id string, token int64, since time.Time) *Permit {
	t.Helper()
	g, err := s.hold(s.newGrant(id, 1, token, since, true))
	require.NoError(t, err)
	return &Permit{s: s, g: g}
}

// isClosed reports whether done is closed, reading the channel directly so
// that Done's own check of the clock stays out of it.
func isClosed(p *Permit) bool {
	select {
	case <-p.g.done:
		return true
	default:
		return false
	}
}

// The expiry timer alone closes Done exactly at the end of validity: not
// one tick earlier, not later. A grant whose validity ends before the
// others' (it was queued long before its grant) rearms the timer earlier,
// and a grant whose validity a refresh pushed back survives the timer set
// for its old end and closes at its new one.
func TestExpiryTimerClosesDoneOnTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const lease = time.Second
		s := bareHandle(lease)
		validFor := lease - s.margin
		start := time.Now()
		first := holdSince(t, s, "h/1", 1, start)
		time.Sleep(validFor / 2)
		early := holdSince(t, s, "h/2", 2, start.Add(-validFor/4))

		time.Sleep(validFor/4 - time.Nanosecond)
		synctest.Wait()
		assert.False(t, isClosed(early), "Done closed before the validity ended")
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		assert.True(t, isClosed(early), "Done of the grant that ends first did not close at its end of validity")
		require.ErrorIs(t, early.g.err, ErrLeaseLost)
		assert.False(t, isClosed(first), "the other grant's Done closed with it")

		// A refresh sent now gets through: first is valid for a lease from now.
		refreshedAt := time.Now()
		s.mu.Lock()
		first.g.valid = refreshedAt.Add(validFor)
		s.mu.Unlock()
		time.Sleep(validFor/4 + time.Nanosecond)
		synctest.Wait()
		assert.False(t, isClosed(first), "Done closed at the end of validity a refresh had pushed back")
		time.Sleep(time.Until(refreshedAt.Add(validFor)))
		synctest.Wait()
		assert.True(t, isClosed(first), "Done did not close at the end of validity the refresh set")
	})
}

// A holder resuming from a pause longer than its lease may ask its grant
// whether it is still trusted before the runtime runs the overdue expiry
// timer. Err and Done read the clock themselves, so both already see the
// lease lost, and not a tick too early.
func TestErrAndDoneReadTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const lease = time.Second
		s := bareHandle(lease)
		byErr := holdSince(t, s, "h/1", 1, time.Now())
		byDone := holdSince(t, s, "h/2", 2, time.Now())
		s.expiry.stop() // the pause: the overdue timer has not run yet

		time.Sleep(lease - s.margin - time.Nanosecond)
		require.NoError(t, byErr.Err())
		require.False(t, isClosed(byDone))
		time.Sleep(time.Nanosecond)
		require.ErrorIs(t, byErr.Err(), ErrLeaseLost, "Err trusted a grant past its validity")
		assert.True(t, isClosed(byErr))
		select {
		case <-byDone.Done():
		default:
			t.Fatal("Done was open for a grant past its validity")
		}
		require.ErrorIs(t, byDone.Err(), ErrLeaseLost)
	})
}

// A suspended machine (to RAM, or a VM frozen by its host) stops the
// monotonic clock that Go's timers run on, while the server's clock, and
// the lease, run on. On resume the wall clock has jumped: the grant is lost
// at once to Err, and its Done closes within a twelfth of the lease,
// before the monotonic clock reaches its end of validity.
func TestSuspendEndsGrantsByTheWallClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const lease = time.Second
		s := bareHandle(lease)
		var suspended atomic.Int64
		s.hooks = &hooks{wallClock: func() time.Time { return time.Now().Add(time.Duration(suspended.Load())) }}
		p := holdSince(t, s, "h/1", 1, time.Now())
		time.Sleep(lease / 4)
		require.NoError(t, p.Err())
		suspended.Store(int64(lease)) // resumed: the wall clock moved a lease on, the monotonic clock did not

		time.Sleep(lease / 12)
		synctest.Wait()
		assert.True(t, isClosed(p), "Done stayed open after a suspend past the lease")
		require.ErrorIs(t, p.Err(), ErrLeaseLost)
	})
}
