package acquiretest

import (
	"context"
	"errors"
	"testing"

	"github.com/semacat/sem"
)

// Closable is a semaphore that can be closed.
type Closable interface {
	sem.Semaphore
	sem.Closer
}

// CheckClosedRefusesZeroWeight checks, on a semaphore built by newSem, that
// after Close zero-weight requests fail too, although they never wait:
// TryAcquire(0) reports false and Acquire(ctx, 0) returns an error wrapping
// sem.ErrClosed, as sem.Closer asks of every later request. It is not a
// semtest row because etcdsem and redissem still serve zero-weight requests
// after Close.
func CheckClosedRefusesZeroWeight(t *testing.T, newSem func(size int64) Closable) {
	t.Helper()
	s := newSem(2)
	if err := s.Close(); err != nil {
		t.Fatalf("Close() = %v; want nil", err)
	}
	if s.TryAcquire(0) {
		t.Error("TryAcquire(0) after Close = true; want false")
	}
	if err := s.Acquire(context.Background(), 0); !errors.Is(err, sem.ErrClosed) {
		t.Errorf("Acquire(ctx, 0) after Close = %v; want an error wrapping sem.ErrClosed", err)
	}
}
