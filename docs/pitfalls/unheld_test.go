package pitfalls_test

import (
	"context"
	"fmt"

	"github.com/semacat/sem/chansem"
)

// useWrong defers the Release before it knows whether Acquire succeeded.
func useWrong(ctx context.Context, s *chansem.Semaphore, use func()) error {
	err := s.Acquire(ctx, 1)
	defer s.Release(1) // BUG: runs even when Acquire failed
	if err != nil {
		return err
	}
	use()
	return nil
}

// useRight defers the Release only once the permit is held.
func useRight(ctx context.Context, s *chansem.Semaphore, use func()) error {
	if err := s.Acquire(ctx, 1); err != nil {
		return err
	}
	defer s.Release(1)
	use()
	return nil
}

// failAcquireTwice calls use twice with a canceled context on a semaphore
// of size 1, so that both Acquires fail: first on the idle semaphore, then
// while a holder has the only permit, after which one more caller tries to
// get in. It prints what the first call panicked with, what the second
// returned, and how many held a permit at once.
func failAcquireTwice(use func(context.Context, *chansem.Semaphore, func()) error) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	s := chansem.New(1)

	fmt.Println("idle, panic:", catch(func() { _ = use(canceled, s, func() {}) }))

	inUse := 0
	if s.TryAcquire(1) { // a holder takes the only permit
		inUse++
	}
	fmt.Println("held, error:", use(canceled, s, func() {}))
	if s.TryAcquire(1) { // one more caller: in if use released the holder's permit
		inUse++
	}
	fmt.Printf("in use at once: %d (size %d)\n", inUse, s.Size())
}

// A failed Acquire followed by a Release gives back a permit the caller never
// had. On an idle semaphore that is caught; while someone else holds the
// permit, it silently lets one caller too many in.
func Example_releaseNotHeld() {
	failAcquireTwice(useWrong)
	// Output:
	// idle, panic: chansem: Release(1): released more than held (0 held)
	// held, error: context canceled
	// in use at once: 2 (size 1)
}

// The fix: release only after a successful Acquire.
func Example_releaseOnlyWhatYouHold() {
	failAcquireTwice(useRight)
	// Output:
	// idle, panic: <nil>
	// held, error: context canceled
	// in use at once: 1 (size 1)
}
