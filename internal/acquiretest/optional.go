package acquiretest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/semacat/sem"
)

// Optional is a semaphore that offers every optional interface of package
// sem.
type Optional interface {
	sem.Semaphore
	sem.Resizer
	sem.Closer
	sem.Observer
}

// CheckOptional runs the checks of the optional interfaces that semtest.Run
// leaves to the strategies, each in a synctest bubble, on semaphores built
// by newSem: Close fails a waiter whose context can never be done (every
// waiter of semtest has one that can), which then stops counting in
// Waiting; a closed semaphore refuses zero-weight requests too, reports a
// done context before the closing, and stays closed through a Resize; and a
// waiter that a shrink fails gets an error naming the new size and stops
// counting in Waiting.
func CheckOptional(t *testing.T, newSem func(size int64) Optional) {
	t.Run("CloseFailsBackgroundWaiter", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) { closeFailsBackgroundWaiter(t, newSem) })
	})
	t.Run("ClosedRefusesLaterRequests", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) { closedRefusesLaterRequests(t, newSem) })
	})
	t.Run("ResizeKeepsClosed", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) { resizeKeepsClosed(t, newSem) })
	})
	t.Run("ShrinkFailedLeavesWaiting", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) { shrinkFailedLeavesWaiting(t, newSem) })
	})
}

func closeFailsBackgroundWaiter(t *testing.T, newSem func(size int64) Optional) {
	s := newSem(1)
	if !s.TryAcquire(1) {
		t.Fatal("TryAcquire(1) on a fresh semaphore of size 1 failed")
	}
	result := make(chan error, 1)
	go func() { result <- s.Acquire(context.Background(), 1) }()
	synctest.Wait()
	if err := s.Close(); err != nil {
		t.Fatalf("Close() = %v; want nil", err)
	}
	synctest.Wait()
	select {
	case err := <-result:
		if !errors.Is(err, sem.ErrClosed) {
			t.Errorf("Acquire(context.Background(), 1) waiting when Close came = %v; want an error wrapping sem.ErrClosed", err)
		}
	default:
		t.Error("Acquire(context.Background(), 1) still waits after Close")
	}
	expectWaiting(t, s, 0, 0, "after Close failed the only waiter")
	s.Release(1)
}

func closedRefusesLaterRequests(t *testing.T, newSem func(size int64) Optional) {
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
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Acquire(done, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("Acquire(canceled ctx, 1) after Close = %v; want context.Canceled: a done context comes first", err)
	}
}

func resizeKeepsClosed(t *testing.T, newSem func(size int64) Optional) {
	s := newSem(2)
	if !s.TryAcquire(2) {
		t.Fatal("TryAcquire(2) on a fresh semaphore of size 2 failed")
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close() = %v; want nil", err)
	}
	s.Release(2)
	for _, size := range []int64{3, 1} {
		s.Resize(size)
		if s.TryAcquire(1) {
			s.Release(1)
			t.Errorf("TryAcquire(1) after Close and Resize(%d) = true; a Resize reopened a closed semaphore", size)
		}
		if err := s.Acquire(context.Background(), 1); !errors.Is(err, sem.ErrClosed) {
			t.Errorf("Acquire(ctx, 1) after Close and Resize(%d) = %v; want an error wrapping sem.ErrClosed", size, err)
		}
	}
}

func shrinkFailedLeavesWaiting(t *testing.T, newSem func(size int64) Optional) {
	s := newSem(4)
	if !s.TryAcquire(4) {
		t.Fatal("TryAcquire(4) on a fresh semaphore of size 4 failed")
	}
	var calls []*Call
	for _, n := range []int64{1, 3, 1} {
		calls = append(calls, Go(s, n))
		synctest.Wait()
	}
	defer func() {
		for _, c := range calls {
			c.Cancel()
		}
	}()
	expectWaiting(t, s, 3, 5, "with Acquire(1), Acquire(3), Acquire(1) waiting")
	s.Resize(2)
	synctest.Wait()
	const exceeds = "Acquire(3) can never succeed on a semaphore of size 2"
	if !calls[1].Returned() || !errors.Is(calls[1].Err, sem.ErrExceedsSize) || !strings.Contains(calls[1].Err.Error(), exceeds) {
		t.Fatalf("after shrinking from 4 to 2, the waiting Acquire(3): returned %v, err %v; want an error saying %q, wrapping sem.ErrExceedsSize",
			calls[1].Returned(), calls[1].Err, exceeds)
	}
	expectWaiting(t, s, 2, 2, "after a shrink failed the waiting Acquire(3)")
	s.Release(4)
	synctest.Wait()
	if !calls[0].Served() || !calls[2].Served() {
		t.Fatalf("after the 4 held came back under size 2, the two waiting Acquire(1) were not both served (errs %v, %v)", calls[0].Err, calls[2].Err)
	}
	expectWaiting(t, s, 0, 0, "after both Acquire(1) were served")
	s.Release(2)
}

// expectWaiting fails t unless s.Waiting() reports requests and permits.
func expectWaiting(t *testing.T, s sem.Observer, requests int, permits int64, when string) {
	t.Helper()
	if r, p := s.Waiting(); r != requests || p != permits {
		t.Errorf("%s: Waiting() = %d, %d; want %d, %d", when, r, p, requests, permits)
	}
}
