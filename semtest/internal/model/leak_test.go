package model

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/semtest/internal/reftest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// leaky is a correct semaphore whose every Acquire leaves a goroutine
// blocked forever behind it.
type leaky struct {
	sem.Semaphore
	never chan struct{}
}

func newLeaky(size int64) sem.Semaphore {
	return &leaky{Semaphore: reftest.New(true, reftest.None)(size), never: make(chan struct{})}
}

func (l *leaky) Acquire(ctx context.Context, n int64) error {
	go l.park()
	return l.Semaphore.Acquire(ctx, n)
}

// park blocks forever. TestMain tells goleak to expect it.
func (l *leaky) park() { <-l.never }

// TestGoroutineLeak checks that a goroutine the semaphore leaves behind is
// reported, instead of crashing the test binary with synctest's deadlock.
func TestGoroutineLeak(t *testing.T) {
	f, err := ReplayFailure(t, newLeaky, Claims{}, "size 1; w1 acquire 1 bg")
	require.NoError(t, err)
	require.NotNil(t, f)
	assert.Equal(t, "goroutine-leak", f.Kind)
	assert.Equal(t, "size 1; w1 acquire 1 bg", f.Program)
}

// rawChan is a buffered channel used as a semaphore with nothing added: an
// over-release blocks forever on the empty channel.
type rawChan struct {
	sem.Semaphore
	slots chan struct{}
}

func newRawChan(size int64) sem.Semaphore {
	return &rawChan{Semaphore: reftest.New(false, reftest.None)(size), slots: make(chan struct{}, size)}
}

// Release blocks forever: nobody ever sends. TestMain tells goleak to
// expect it.
func (c *rawChan) Release(int64) { <-c.slots }

// TestHang checks that a call that never returns is reported, instead of
// crashing the test binary with synctest's deadlock.
func TestHang(t *testing.T) {
	f, err := ReplayFailure(t, newRawChan, Claims{}, "size 1; overrelease")
	require.NoError(t, err)
	require.NotNil(t, f)
	assert.Equal(t, "hang", f.Kind)
	assert.Equal(t, 1, f.Step)
}
