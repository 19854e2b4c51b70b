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

// A failed Acquire followed by a Release gives back a permit the caller never
// had. On an idle semaphore that is caught; while someone else holds the
// permit, it silently lets one caller too many in.
func Example_releaseNotHeld() {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	s := chansem.New(1)

	fmt.Println(catch(func() { _ = useWrong(canceled, s, func() {}) }))

	inUse := 0
	if s.TryAcquire(1) { // a holder takes the only permit
		inUse++
	}
	_ = useWrong(canceled, s, func() {}) // fails, and releases the holder's permit
	if s.TryAcquire(1) {                 // so a third caller gets in
		inUse++
	}
	fmt.Printf("in use at once: %d (size %d)\n", inUse, s.Size())
	// Output:
	// chansem: Release(1): released more than held (0 held)
	// in use at once: 2 (size 1)
}

// The fix: release only after a successful Acquire.
func Example_releaseOnlyWhatYouHold() {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	s := chansem.New(1)

	fmt.Println(catch(func() { _ = useRight(canceled, s, func() {}) }))

	inUse := 0
	if s.TryAcquire(1) {
		inUse++
	}
	fmt.Println(useRight(canceled, s, func() {}))
	if s.TryAcquire(1) {
		inUse++
	}
	fmt.Printf("in use at once: %d (size %d)\n", inUse, s.Size())
	// Output:
	// <nil>
	// context canceled
	// in use at once: 1 (size 1)
}
