package worker_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem/lab/faults/fence"
	"github.com/semacat/sem/lab/faults/history"
	"github.com/semacat/sem/lab/faults/worker"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fake is an Acquirer that grants at once, with tokens 1, 2, ..., or fails
// with err; its grants' Done is done (nil: cannot signal). It ends the run
// by calling stop once cycles acquires have ended, in a release or an
// error.
type fake struct {
	err    error
	done   chan struct{}
	cycles int
	stop   context.CancelFunc
	next   int64
	ended  int
	// openChecks is how many checks find done open before it closes; 0:
	// done is as given.
	openChecks int
}

func (f *fake) Acquire(context.Context, int64) (worker.Grant, error) {
	if f.err != nil {
		f.end()
		return nil, f.err
	}
	f.next++
	return &grant{f, f.next}, nil
}

func (f *fake) end() {
	if f.ended++; f.ended == f.cycles {
		f.stop()
	}
}

func (f *fake) Close() error { return nil }

type grant struct {
	f     *fake
	token int64
}

func (g *grant) Token() int64          { return g.token }
func (g *grant) Done() <-chan struct{} { return g.f.done }
func (g *grant) Err() error {
	if g.f.openChecks > 0 {
		if g.f.openChecks--; g.f.openChecks == 0 {
			close(g.f.done) // the lease is lost right after this check
		}
		return nil
	}
	select {
	case <-g.f.done:
		return errLost
	default:
		return nil
	}
}

var errLost = errors.New("lease lost")

func (g *grant) Release(context.Context) error { g.f.end(); return nil }

// runFake runs one worker on f for the given number of cycles and returns
// its history.
func runFake(t *testing.T, f *fake, cycles int, cfg worker.Config) []history.Event {
	dir := t.TempDir()
	store, err := fence.Start(filepath.Join(dir, "store.jsonl"))
	require.NoError(t, err)
	path := filepath.Join(dir, "w.jsonl")
	log, err := history.Create(path, "w")
	require.NoError(t, err)
	cfg.Name, cfg.Weight, cfg.Store, cfg.Key = "w", 1, store.URL(), "k"
	cfg.AcquireTimeout, cfg.ReleaseTimeout, cfg.Duration = time.Second, time.Second, time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.cycles, f.stop = cycles, cancel
	require.NoError(t, worker.Run(ctx, f, cfg, log))
	require.NoError(t, log.Close())
	require.NoError(t, store.Close())
	events, err := history.Read(path)
	require.NoError(t, err)
	return events
}

func kinds(events []history.Event) []history.Kind {
	var k []history.Kind
	for _, e := range events {
		k = append(k, e.Kind)
	}
	return k
}

// A cycle is logged in full: the grant cannot signal, both writes are
// checked first and go through the fence, and the release is logged before
// and after.
func TestCycle(t *testing.T) {
	a := &fake{}
	events := runFake(t, a, 1, worker.Config{Hold: time.Millisecond})
	assert.Equal(t, []history.Kind{history.AcquireStart, history.Granted, history.DoneOpen, history.WriteAccepted,
		history.DoneOpen, history.WriteAccepted, history.ReleaseStart, history.Released, history.Exit}, kinds(events))
	assert.False(t, events[1].CanSignal)
	assert.Equal(t, int64(1), events[1].Token)
	assert.Equal(t, 1, a.ended)
}

// A grant found lost when checked stops the holder before it writes; a
// worker that ignores Done writes on, unchecked.
func TestDone(t *testing.T) {
	done := make(chan struct{})
	close(done)
	heeds := runFake(t, &fake{done: done}, 1, worker.Config{Hold: time.Millisecond})
	assert.Equal(t, []history.Kind{history.AcquireStart, history.Granted,
		history.DoneFired, history.ReleaseStart, history.Released, history.Exit}, kinds(heeds))
	assert.True(t, heeds[1].CanSignal)
	assert.Equal(t, errLost.Error(), heeds[2].Err)

	ignores := runFake(t, &fake{done: done}, 1, worker.Config{Hold: time.Millisecond, IgnoreDone: true})
	assert.Equal(t, []history.Kind{history.AcquireStart, history.Granted, history.WriteAccepted,
		history.WriteAccepted, history.ReleaseStart, history.Released, history.Exit}, kinds(ignores))
}

// A grant whose Done fires while the holder waits ends the hold early,
// without the second write.
func TestDoneWhileHolding(t *testing.T) {
	f := &fake{done: make(chan struct{}), openChecks: 1}
	events := runFake(t, f, 1, worker.Config{Hold: 2 * time.Second}) // a wrong sequence, not a hang, if Done is missed
	assert.Equal(t, []history.Kind{history.AcquireStart, history.Granted, history.DoneOpen, history.WriteAccepted,
		history.DoneFired, history.ReleaseStart, history.Released, history.Exit}, kinds(events))
	assert.Equal(t, errLost.Error(), events[4].Err)
}

// A failed acquire is logged with its error, and the worker goes on.
func TestAcquireFails(t *testing.T) {
	events := runFake(t, &fake{err: errors.New("no server")}, 2, worker.Config{Hold: time.Millisecond})
	assert.Equal(t, []history.Kind{history.AcquireStart, history.AcquireFailed,
		history.AcquireStart, history.AcquireFailed, history.Exit}, kinds(events))
	assert.Equal(t, "no server", events[1].Err)
}
