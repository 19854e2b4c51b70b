package sleepcond_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/condsem"
	"github.com/semacat/sem/docs/classics/sleepcond"
	"github.com/semacat/sem/docs/classics/witness"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// observable is a semaphore that tells how many Acquires wait.
type observable interface {
	sem.Semaphore
	Waiting() (requests int, permits int64)
}

// patience is how long the waiter waits. The test runs on the real clock:
// a goroutine blocked on a sync.Mutex is not durably blocked, so a
// synctest bubble would never advance its clock past the recipe's sleep.
const patience = 100 * time.Millisecond

// handOff has a holder of the only permit release it while a second
// goroutine waits for it, both through the witness. It returns what the
// waiter's Acquire returned.
func handOff(t *testing.T, s observable, w *witness.Witness) error {
	ctx := context.Background()
	require.NoError(t, s.Acquire(ctx, 1))
	waiterErr := make(chan error, 1)
	w.Hold(func() {
		go func() {
			ctx, cancel := context.WithTimeout(ctx, patience)
			defer cancel()
			err := s.Acquire(ctx, 1)
			if err == nil {
				w.Hold(func() {})
				s.Release(1)
			}
			waiterErr <- err
		}()
		for waiting, _ := s.Waiting(); waiting == 0; waiting, _ = s.Waiting() {
			runtime.Gosched() // until the waiter waits: now the permit is released to it
		}
	})
	s.Release(1)
	return <-waiterErr
}

// The recipe's waiter holds the mutex the holder needs to release: the
// Release is stuck until the waiter gives up, and the waiter fails with
// its deadline although the permit was given back long before. The
// witness sees one holder of two. condsem, in the same hand-off, serves
// the waiter: its Cond.Wait unlocks the mutex while it sleeps.
func TestSleepingWhileHoldingTheMutex(t *testing.T) {
	t.Run("recipe", func(t *testing.T) {
		w := witness.New(1)
		err := handOff(t, sleepcond.New(1, 5*time.Millisecond), w)
		require.ErrorIs(t, err, context.DeadlineExceeded, "the waiter got the permit: the recipe did not fail")
		assert.Equal(t, witness.Report{Size: 1, Entries: 1, Peak: 1}, w.Report())
	})
	t.Run("condsem", func(t *testing.T) {
		w := witness.New(1)
		require.NoError(t, handOff(t, condsem.New(1), w))
		assert.Equal(t, witness.Report{Size: 1, Entries: 2, Peak: 1}, w.Report())
		assert.NoError(t, w.Report().Err())
	})
}

// The recipe works as long as nobody waits: free permits are taken at once.
func TestRecipeWithoutWaiting(t *testing.T) {
	s := sleepcond.New(2, time.Millisecond)
	assert.True(t, s.TryAcquire(2))
	assert.False(t, s.TryAcquire(1))
	s.Release(2)
	require.NoError(t, s.Acquire(context.Background(), 1))
	s.Release(1)
}
