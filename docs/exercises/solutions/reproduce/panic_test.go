package reproduce_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/semacat/sem/chansem"
)

var errBadRequest = errors.New("bad request")

// render is the work under the permit; it panics on a bad request, as code
// does when it indexes past a slice or follows a nil pointer.
func render(req string) {
	if req == "" {
		panic(errBadRequest)
	}
}

// handleLeaky releases after the work, so a panic skips the Release.
func handleLeaky(ctx context.Context, s *chansem.Semaphore, req string) error {
	if err := s.Acquire(ctx, 1); err != nil {
		return err
	}
	render(req)
	s.Release(1) // BUG: never reached when render panics
	return nil
}

// handle defers the Release right after a successful Acquire, so a panic
// gives the permit back on its way up.
func handle(ctx context.Context, s *chansem.Semaphore, req string) error {
	if err := s.Acquire(ctx, 1); err != nil {
		return err
	}
	defer s.Release(1)
	render(req)
	return nil
}

// serve calls the handler and turns a panic into an error, as net/http's
// server does for each request: the process survives the panic.
func serve(handler func(context.Context, *chansem.Semaphore, string) error, s *chansem.Semaphore, req string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = r.(error)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return handler(ctx, s, req)
}

// afterTwoPanics serves two bad requests, whose handler panics, then a good
// one, through handler on a semaphore of size 2. It returns how many
// permits were free after the panics and how the good request ended, and
// gives back what the panics kept, so that the bubble ends clean.
func afterTwoPanics(t *testing.T, handler func(context.Context, *chansem.Semaphore, string) error) (free int64, good error) {
	s := chansem.New(2)
	for range 2 {
		assert.ErrorIs(t, serve(handler, s, ""), errBadRequest)
	}
	free = s.Available()
	good = serve(handler, s, "ok")
	s.Release(s.Size() - s.Available())
	return free, good
}

func TestPanicLeaksPermits(t *testing.T) {
	requireAsked(t)
	synctest.Test(t, func(t *testing.T) {
		free, good := afterTwoPanics(t, handleLeaky)
		assert.Zero(t, free, "two panics took both permits for good")
		assert.ErrorIs(t, good, context.DeadlineExceeded, "a good request now waits until its deadline")
	})
}

func TestDeferredReleaseSurvivesPanics(t *testing.T) {
	requireAsked(t)
	synctest.Test(t, func(t *testing.T) {
		free, good := afterTwoPanics(t, handle)
		assert.Equal(t, int64(2), free, "the panics gave back every permit")
		assert.NoError(t, good)
	})
}
