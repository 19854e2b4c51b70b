package reproduce_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/docs/exercises/solutions/internal/graded"
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

func TestPanicLeaksPermits(t *testing.T) {
	graded.RequireAsked(t)
	synctest.Test(t, func(t *testing.T) {
		s := chansem.New(2)
		assert.ErrorIs(t, serve(handleLeaky, s, ""), errBadRequest)
		assert.ErrorIs(t, serve(handleLeaky, s, ""), errBadRequest)
		assert.Zero(t, s.Available(), "two panics took both permits for good")
		assert.ErrorIs(t, serve(handleLeaky, s, "ok"), context.DeadlineExceeded, "a good request now waits until its deadline")
		s.Release(2) // the test gives back what the panics leaked
	})
}

func TestDeferredReleaseSurvivesPanics(t *testing.T) {
	graded.RequireAsked(t)
	synctest.Test(t, func(t *testing.T) {
		s := chansem.New(2)
		assert.ErrorIs(t, serve(handle, s, ""), errBadRequest)
		assert.ErrorIs(t, serve(handle, s, ""), errBadRequest)
		assert.Equal(t, int64(2), s.Available())
		assert.NoError(t, serve(handle, s, "ok"))
	})
}
